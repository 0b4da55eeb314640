"""What the client writes: the bodies of progress.json, _error and the log tail."""

from __future__ import annotations

import os
import traceback
from typing import Any, Dict, Optional, Tuple

from . import _protocol as p

#: One progress() call: (step, total_steps, epoch seconds, metrics).
Record = Tuple[int, Any, float, Dict[str, Any]]


def error_text(error: Optional[BaseException], context: str) -> str:
    """`_error`: the exception's last line first (alerts show it), where it happened, then the traceback."""
    if error is None:  # not reached today; kept total so a future caller cannot write an empty _error
        return f"failed\n{context}\n"
    summary = "".join(traceback.format_exception_only(type(error), error)).strip()
    trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    text = f"{summary}\n{context}\n\n{trace}"
    data = text.encode()
    if len(data) <= p.MAX_TEXT_BYTES:
        return text
    # The watchdog reads the end: keep the head line, drop the middle of the traceback.
    head = f"{summary[:2000]}\n{context}\n\n[... traceback shortened ...]\n"
    return head + p.tail_bytes(data, p.MAX_TEXT_BYTES - len(head.encode())).decode(errors="replace")


def progress_body(record: Record) -> bytes:
    """`progress.json` for one progress() call."""
    step, total, at, metrics = record
    body: dict[str, Any] = {"step": step}
    if total is not None:
        body["total_steps"] = total
    body.update(metrics)
    body["last_updated"] = p.iso(at)
    return p.encode_json(body)


def read_tail(path: str) -> bytes:
    """The last 64 KiB of a log file, from its first whole line."""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - p.MAX_TEXT_BYTES))
        return p.tail_bytes(f.read(), cut=size > p.MAX_TEXT_BYTES)
