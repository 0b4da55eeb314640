"""The heartbeat protocol (v1, and v1.1's node files) as the client writes it: file names, run ids, JSON encoding.
v1.4's `platform` (where the run lives on EKS) is found and checked in `_platform.py`.

Mirrors `lambdas/core/protocol/` in the watchdog; the tests check the files against its schemas.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timezone
from typing import Any

METADATA = "metadata.json"
PROGRESS = "progress.json"
ERROR = "_error"
COMPLETE = "_complete"
LOG = "logs/training_log_latest.txt"

DEFAULT_PREFIX = "training-runs"

#: What the client writes in metadata.json's `status`.
STARTING, RUNNING, COMPLETED, FAILED, PREEMPTED = "starting", "running", "completed", "failed", "preempted"

_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_PREFIX = re.compile(r"^[A-Za-z0-9._\-/]*$")

# The watchdog reads at most 64 KiB of `_error` and of the log tail, keeping the end.
MAX_TEXT_BYTES = 64 * 1024
# stale_minutes may be at most a week (the watchdog's schema says so).
MAX_STALE_MINUTES = 7 * 24 * 60
# v1.1: node ranks 0..MAX_NODES-1 (the watchdog's schema says so).
MAX_NODES = 4096


def check_run_id(run_id: object) -> str:
    """Returns `run_id` if it is a valid run id, else raises ValueError saying why."""
    if not isinstance(run_id, str) or not run_id:
        raise ValueError(
            "trainwatch: a run id is required: pass run_id=... or set TRAINWATCH_RUN_ID"
            if not run_id
            else f"trainwatch: run id must be a string, not {type(run_id).__name__}"
        )
    if len(run_id) > 128:
        raise ValueError(f"trainwatch: run id is {len(run_id)} characters long (at most 128)")
    if not _RUN_ID.match(run_id):
        raise ValueError(
            f"trainwatch: run id {run_id!r} may hold only letters, digits, '.', '_' and '-', "
            "and must start with a letter or digit"
        )
    if ".." in run_id:
        raise ValueError(f"trainwatch: run id {run_id!r} must not contain '..'")
    return run_id


def check_prefix(prefix: str) -> str:
    """Normalises a key prefix (no leading/trailing `/`), or raises ValueError."""
    cleaned = prefix.strip().strip("/")
    if not _PREFIX.match(cleaned):
        raise ValueError(f"trainwatch: prefix {prefix!r} may hold only letters, digits, '.', '_', '-' and '/'")
    return cleaned


def check_metadata(fields: dict[str, Any]) -> None:
    """Raises ValueError when a metadata field the watchdog types would be rejected by it."""
    for name in ("job_name", "instance_id", "log_path", "checkpoint_dir", "profile", "phase"):
        value = fields.get(name)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"trainwatch: {name} must be a string, not {type(value).__name__}")
    attempt = fields.get("attempt")
    if attempt is not None and (isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1):
        raise ValueError(f"trainwatch: attempt must be an integer >= 1, not {attempt!r}")
    stale = fields.get("stale_minutes")
    if stale is not None and (
        isinstance(stale, bool)
        or not isinstance(stale, (int, float))
        or not 0 < stale <= MAX_STALE_MINUTES
    ):
        raise ValueError(f"trainwatch: stale_minutes must be a number in (0, {MAX_STALE_MINUTES}], not {stale!r}")
    nodes = fields.get("nodes")
    if nodes is not None and (isinstance(nodes, bool) or not isinstance(nodes, int) or not 1 <= nodes <= MAX_NODES):
        raise ValueError(f"trainwatch: nodes must be an integer in [1, {MAX_NODES}], not {nodes!r}")
    tags = fields.get("tags")
    if tags is not None and not isinstance(tags, dict):
        raise ValueError(f"trainwatch: tags must be a dict, not {type(tags).__name__}")


def iso(epoch: float) -> str:
    """`2024-05-01T12:00:00.123Z`: the ISO-8601 UTC form the protocol uses."""
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _plain(value: Any) -> Any:
    """Turns numpy/torch scalars and other odd values into JSON-able ones (used by json.dumps)."""
    for convert in (lambda v: v.item(), float):
        try:
            return convert(value)
        except Exception:
            pass
    return str(value)


def _finite(value: Any, path: str, non_finite: list[str]) -> Any:
    # JSON has no NaN/Infinity (JavaScript's JSON.parse rejects them): write null, and say which were.
    if isinstance(value, float) and not math.isfinite(value):
        non_finite.append(path)
        return None
    if isinstance(value, dict):
        return {k: _finite(v, f"{path}.{k}" if path else str(k), non_finite) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v, f"{path}[{i}]", non_finite) for i, v in enumerate(value)]
    return value


def encode_json(record: dict[str, Any]) -> bytes:
    """Strict JSON bytes; NaN/Infinity become null and are listed in `non_finite`."""
    # Round-trip once so numpy/torch scalars become floats before the NaN check sees them.
    plain = json.loads(json.dumps(record, default=_plain))
    non_finite: list[str] = []
    clean = _finite(plain, "", non_finite)
    if non_finite:
        clean["non_finite"] = non_finite
    return json.dumps(clean, allow_nan=False, separators=(",", ":")).encode()


def tail_bytes(data: bytes, limit: int = MAX_TEXT_BYTES, cut: bool = False) -> bytes:
    """The last `limit` bytes; when that (or `cut`: the data is already a file's end) drops a head,
    the partial first line goes too."""
    if len(data) > limit:
        data, cut = data[-limit:], True
    if not cut:
        return data
    newline = data.find(b"\n")
    return data[newline + 1 :] if 0 <= newline < len(data) - 1 else data
