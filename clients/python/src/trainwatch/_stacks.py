"""Protocol v1.2: `stacks/{node_rank}.json`, every thread's Python stack while the training thread is stuck.

The writer thread (never the training thread) looks at the time since the training thread's last
`progress()` call; past `stack_after` (v1.3: never below 3 times the node's p99 time between calls) it
captures every thread's stack, writes it through the Worker, rewrites it every REWRITE_EVERY seconds while
the thread stays stuck, and deletes it at the first `progress()` call afterwards. From half of `stack_after`
on, it samples the training thread's stack signature every SAMPLE_EVERY seconds, so the file can say whether
the thread is `moving` (a long evaluation loop) or stuck in one place (a hang). While progress flows it costs
one comparison per poll: no sample, no capture, no S3 op.
"""

from __future__ import annotations

import json
import linecache
import logging
import os
import re
import sys
import threading
import time
from types import FrameType
from typing import Any, Callable, Optional

from . import _protocol as p

log = logging.getLogger("trainwatch")

#: Default seconds without a progress() call before the stacks are written (`TRAINWATCH_STACK_AFTER`).
DEFAULT_AFTER = 60.0
#: Never less than this many times the node's p99 time between calls (its median before the node has a
#: cadence): a slow-but-healthy step writes none.
PACE_FACTOR = 3
#: ...but the pace never pushes stack_after past this (seconds): a hang's stacks must be on S3 before a
#: 10-minute NCCL watchdog kills the job, whatever the step time.
PACE_CAP = 300.0
#: While the thread has made no call for half of stack_after: seconds between samples of its stack signature,
#: and how far back the samples that decide `moving` reach (at least MOVING_SAMPLES of them).
SAMPLE_EVERY = 2.0
MOVING_WINDOW = 10.0
MOVING_SAMPLES = 3
#: Seconds between rewrites while the training thread stays stuck (`captured_at` moves).
REWRITE_EVERY = 300.0
#: The watchdog refuses a larger body (a finding about the node).
MAX_BYTES = 64 * 1024
MAX_THREADS = 64
MAX_FRAMES = 40
MAX_FILE, MAX_FUNCTION, MAX_CODE, MAX_NAME = 240, 120, 160, 80
#: Frames kept of a thread other than the training thread when the full stacks do not fit MAX_BYTES.
SHORT_FRAMES = 8

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|h)?\s*$")
_UNIT = {None: 1.0, "ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def name(node_rank: int) -> str:
    return f"stacks/{node_rank}.json"


def parse_after(value: Any, what: str = "stack_after") -> float:
    """Seconds from a number or a duration (`90`, `90s`, `2m`, `1h`); ValueError unless positive."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        match = _DURATION.match(str(value))
        if not match:
            raise ValueError(f"trainwatch: {what}={value!r} is not a duration (seconds, or like 90s, 2m)")
        seconds = float(match.group(1)) * _UNIT[match.group(2)]
    if not 0 < seconds < float("inf"):
        raise ValueError(f"trainwatch: {what} must be more than 0 seconds, not {value!r}")
    return seconds


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _cut(text: str, limit: int, keep_tail: bool = False) -> str:
    """At most `limit` characters as the watchdog (JavaScript) counts them: UTF-16 units, so an emoji is two."""
    # Source text and file names may hold anything, lone surrogates included: make them encodable first.
    text = text.encode("utf-8", "replace").decode("utf-8")
    if _units(text) <= limit:
        return text
    keep = limit - 1  # and the ellipsis
    cut = text[-keep:] if keep_tail else text[:keep]
    while _units(cut) > keep:
        cut = cut[1:] if keep_tail else cut[:-1]
    return "…" + cut if keep_tail else cut + "…"


def _frames(frame: Optional[FrameType]) -> tuple[list[dict[str, Any]], int]:
    """The MAX_FRAMES innermost frames, outermost first, and how many outer ones were left out."""
    chain = []
    while frame is not None:
        chain.append(frame)
        frame = frame.f_back
    kept = chain[:MAX_FRAMES]
    out = []
    for f in reversed(kept):
        code = f.f_code
        line = f.f_lineno or 0
        entry: dict[str, Any] = {
            "file": _cut(code.co_filename, MAX_FILE, keep_tail=True),
            "line": line,
            # The plain name (`__next__`, `wait`), as in a traceback: what the watchdog's rules match on.
            "function": _cut(code.co_name, MAX_FUNCTION),
        }
        source = linecache.getline(code.co_filename, line, f.f_globals).strip() if line > 0 else ""
        if source:
            entry["code"] = _cut(source, MAX_CODE)
        out.append(entry)
    return out, len(chain) - len(kept)


def _thread(label: str, training: bool, daemon: bool, frames: list[dict[str, Any]], dropped: int) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": _cut(label, MAX_NAME), "training": training, "daemon": daemon, "frames": frames}
    if dropped:
        entry["frames_dropped"] = dropped
    return entry


def _encode(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def signature(ident: Optional[int]) -> Optional[tuple[tuple[str, int, str], ...]]:
    """Where a thread is now: (file, line, function) of each of its frames, innermost first; None when gone."""
    frame = sys._current_frames().get(ident) if ident is not None else None  # type: ignore[arg-type]
    out = []
    while frame is not None:
        code = frame.f_code
        out.append((code.co_filename, frame.f_lineno or 0, code.co_name))
        frame = frame.f_back
    return tuple(out) if out else None


def capture(
    node_rank: int, training: Optional[int], step: Optional[int], stuck_s: float, moving: Optional[bool] = None
) -> bytes:
    """The stacks file now: the training thread (ident `training`) first, then the others; at most MAX_BYTES."""
    current = sys._current_frames()
    known = {t.ident: t for t in threading.enumerate()}
    # The training thread, then the others as threading lists them (main first), then any it does not know.
    order = [training] if training in current else []
    order += [ident for ident in known if ident in current and ident != training]
    order += sorted(ident for ident in current if ident not in known and ident != training)
    threads: list[dict[str, Any]] = []
    for ident in order[:MAX_THREADS]:
        frames, dropped = _frames(current[ident])
        thread = known.get(ident)
        # A thread started outside `threading` (by C code) has no name; Python calls such threads daemons.
        label, daemon = (thread.name, thread.daemon) if thread is not None else (f"<thread {ident}>", True)
        threads.append(_thread(label, ident == training, daemon, frames, dropped))
    del current  # frames keep their locals alive: let go at once
    body: dict[str, Any] = {
        "node_rank": node_rank,
        "captured_at": p.iso(time.time()),
        "step": step,
        "stuck_s": round(stuck_s, 1),
        "pid": os.getpid(),
        **({} if moving is None else {"moving": moving}),
        "threads": [],
        "truncated": True,  # the longer value while measuring; set below
    }
    kept, truncated = _fit(threads, MAX_BYTES - len(_encode(body)))
    body["threads"], body["truncated"] = kept, truncated or len(order) > MAX_THREADS
    return _encode(body)


def _fit(threads: list[dict[str, Any]], budget: int) -> tuple[list[dict[str, Any]], bool]:
    """As many threads as fit `budget` bytes, in order, and whether anything was cut to fit. The first (the
    training thread) loses outer frames one by one until it fits; another thread that does not fit whole gets
    one try with its SHORT_FRAMES innermost frames, then is left out."""
    kept: list[dict[str, Any]] = []
    used, truncated = 0, False
    for index, thread in enumerate(threads):
        n = len(thread["frames"])
        tries = range(n, 0, -1) if index == 0 else (n, min(n - 1, SHORT_FRAMES))
        for count in (c for c in tries if c > 0):
            entry = thread if count == n else _keep_innermost(thread, count)
            size = len(_encode(entry)) + 1  # and its comma
            if used + size <= budget:
                kept.append(entry)
                used += size
                break
            truncated = True
    return kept, truncated


def _keep_innermost(thread: dict[str, Any], count: int) -> dict[str, Any]:
    frames = thread["frames"]
    dropped = thread.get("frames_dropped", 0) + len(frames) - count
    return _thread(thread["name"], thread["training"], thread["daemon"], frames[len(frames) - count :], dropped)


class StackWatch:
    """The writer thread's side of the stacks file; `poll(now)` decides, `out` tells progress() to wake it.

    `out` is True while a stacks file is written or queued: the training thread reads it after each call
    and wakes the writer, which then queues the DELETE (every S3 op of this file comes from one thread,
    so a delete can never be overtaken by a put).
    """

    def __init__(
        self,
        node: Any,
        worker: Callable[[], Any],
        after: float = DEFAULT_AFTER,
        rewrite_every: Optional[float] = None,
    ) -> None:
        self._node = node  # a NodeBeat: latest(), cadence(), usual_gap(), node_rank
        self._worker = worker
        self.after = after
        self.rewrite_every = REWRITE_EVERY if rewrite_every is None else rewrite_every
        self.name = name(node.node_rank)
        #: The thread that made the latest progress() call (before any: the one that started the client).
        self.thread: Optional[int] = None
        self.out = False
        self._started_at = 0.0
        self._start = object()  # stands for "no call yet" where a call would be
        self._episode: Any = None  # the latest call (or _start) when a capture was last tried
        self._next_write = 0.0
        # (monotonic time, signature) of the training thread, since the latest call (`_sampled`) went quiet.
        self._samples: list[tuple[float, Any]] = []
        self._sampled: Any = None
        self._next_sample = 0.0
        self._warned = False
        self._closed = False

    def close(self) -> None:
        """At a good end of the run: no more captures, and a stacks file that is out is deleted."""
        self._closed = True
        if self.out:
            self.out = False
            self._worker().delete(self.name)

    def begin(self, now: float, thread: int) -> None:
        """On start: before the first progress() call, "no progress" counts from now, on this thread."""
        self._started_at, self.thread = now, thread

    def in_force(self) -> float:
        """The stack_after in force now: the configured one, never below PACE_FACTOR times the node's p99 time
        between calls (before it has a cadence: its median time between the calls so far), up to PACE_CAP."""
        cadence = self._node.cadence()
        gap = cadence[1] if cadence is not None else self._node.usual_gap()
        return max(self.after, min(PACE_FACTOR * gap, PACE_CAP)) if gap else self.after

    def moving(self, now: float) -> Optional[bool]:
        """Whether the training thread moved between the samples of the last MOVING_WINDOW seconds: True when
        any two differ, False when MOVING_SAMPLES or more are all equal, None with fewer."""
        recent = [sig for at, sig in self._samples if at >= now - MOVING_WINDOW - 0.5]
        if len(recent) < MOVING_SAMPLES:
            return None
        return any(sig != recent[0] for sig in recent[1:])

    def _sample(self, now: float, token: Any) -> float:
        """Samples the training thread's stack signature when due; the seconds until the next sample."""
        if token is not self._sampled:
            self._sampled, self._samples, self._next_sample = token, [], 0.0
        if now >= self._next_sample:
            self._next_sample = now + SAMPLE_EVERY
            self._samples = [s for s in self._samples if s[0] >= now - 2 * MOVING_WINDOW]
            self._samples.append((now, signature(self.thread)))
        return self._next_sample - now

    def _latest(self) -> tuple[Any, float, Optional[int]]:
        call = self._node.latest()
        return (self._start, self._started_at, None) if call is None else (call, call[0], call[1])

    def poll(self, now: float) -> float:
        """Writes, rewrites or deletes the stacks file as due; returns the seconds until it wants to look again."""
        token, since, step = self._latest()
        if self.out and token is not self._episode:  # progress() was called since the capture
            self.out = False
            self._worker().delete(self.name)
        if token is self._episode:  # still stuck where the last capture was tried
            wait = self._sample(now, token)
            if now < self._next_write:
                return min(wait, self._next_write - now)
            return self._capture(now, token, since, step)
        sample_from = since + self.after / 2
        if now < sample_from:
            return sample_from - now
        after = self.in_force()  # read only now: costs nothing while progress flows
        sample_from = since + after / 2
        if now < sample_from:
            return sample_from - now
        wait = self._sample(now, token)
        if now < since + after:
            return min(wait, since + after - now)
        return self._capture(now, token, since, step)

    def _capture(self, now: float, token: Any, since: float, step: Optional[int]) -> float:
        self._episode, self._next_write = token, now + self.rewrite_every
        # Set before looking again: a progress() call from here on sees it and wakes the writer to delete.
        was_out, self.out = self.out, True
        if self._latest()[0] is not token:
            self.out = was_out
            return 0.0
        try:
            body = capture(self._node.node_rank, self.thread, step, now - since, self.moving(now))
        except Exception as error:  # never into training; tried again at the next rewrite
            self.out = was_out
            if not self._warned:
                self._warned = True
                log.warning("trainwatch: could not capture the stacks of a stuck training thread (%s)", error)
            return self.rewrite_every
        if self._closed:  # the run ended well meanwhile
            self.out = was_out
            return self.rewrite_every
        self._worker().put(self.name, body)
        return min(self.rewrite_every, max(0.01, self._next_sample - now))
