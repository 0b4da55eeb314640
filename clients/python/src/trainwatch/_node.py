"""This node's file, `nodes/{node_rank}.json` (protocol v1.1): alive, step timing, throughput, GPU telemetry;
since v1.3 its cadence (the writer's interval, the time between progress() calls, the stack_after in force); since
v1.4, on Kubernetes, the pod, node and namespace of the pod that writes it.

`record()` runs on the training thread (a deque append); everything else runs on the writer thread.
"""

from __future__ import annotations

import bisect
import collections
import logging
import math
import statistics
import time
from typing import Any, Callable, Optional

from . import _protocol as p
from ._environment import hostname
from ._gpus import GpuSampler

log = logging.getLogger("trainwatch")

#: How many recent progress() calls are kept (about 100 bytes each): a node file's rates cover the calls since
#: the previous file, so this many calls may come between two files before the rates are judged over fewer.
KEPT = 4096
#: How many of the latest calls say what a node's usual pace is (median step time, time between calls).
PACE = 64
#: progress() metrics that count what this node processed since its previous progress() call.
COUNTS = ("samples", "tokens")
#: progress() metrics that already are this node's rates.
RATES = ("samples_per_s", "tokens_per_s")
#: v1.3 cadence: the gaps between progress() calls before this call (1-based) are left out (compile, data
#: warm-up), then the latest CADENCE_GAPS gaps count, and nothing is said before CADENCE_MIN of them are known.
WARMUP_CALLS = 5
CADENCE_GAPS = 512
CADENCE_MIN = 10
#: A GPU at or below this utilisation (%) is idle; `idle_s` says for how long, at every sample since.
IDLE_UTIL = 5

# One progress() call: (monotonic seconds, step, samples, tokens, samples_per_s, tokens_per_s).
Call = tuple[Any, ...]
#: This node's cadence: the median and p99 seconds between its progress() calls, and how many gaps they cover.
Cadence = tuple[float, float, int]


class NodeBeat:
    def __init__(
        self,
        node_rank: int,
        nodes: Optional[int],
        gpus: Optional[GpuSampler] = None,
        every_s: Optional[float] = None,
        pod: Optional[dict[str, str]] = None,
    ) -> None:
        self.node_rank, self.nodes = node_rank, nodes
        #: v1.4: this node's `pod`, `node` and `namespace` on Kubernetes (checked strings), else empty.
        self.pod = dict(pod or {})
        #: The writer's interval (`every_s` in the file), and the stacks' threshold in force (`stack_after_s`):
        #: a function the Run sets when stacks are on.
        self.every_s = every_s
        self.stack_after: Optional[Callable[[], Optional[float]]] = None
        # The cadence, worked out again only when a progress() call came since: (latest call, cadence).
        self._cadence: tuple[Any, Optional[Cadence]] = (None, None)
        self._gpus = gpus or GpuSampler()
        self._calls: collections.deque[Call] = collections.deque(maxlen=KEPT)
        # The previous file: when it was made (monotonic) and the timing it carried.
        self._previous: Optional[tuple[float, dict[str, Any]]] = None
        self._failed = False
        # GPU index → monotonic seconds of the first sample of its current idle stretch.
        self._idle_since: dict[int, float] = {}

    @property
    def name(self) -> str:
        return f"nodes/{self.node_rank}.json"

    def record(self, now: float, step: int, metrics: dict[str, Any]) -> None:
        """One progress() call; called on the training thread, so only a cheap append."""
        if metrics:
            get = metrics.get  # spelled out: a generator here would double the cost of progress()
            self._calls.append((now, step, get("samples"), get("tokens"), get("samples_per_s"), get("tokens_per_s")))
        else:
            self._calls.append((now, step, None, None, None, None))

    def latest(self) -> Optional[Call]:
        """The latest progress() call (a new tuple each call, so `is` tells a newer one apart), or None."""
        try:
            return self._calls[-1]
        except IndexError:
            return None

    def usual_gap(self) -> Optional[float]:
        """The median time between this node's recent progress() calls, or None before two calls."""
        return _pace(_snapshot(self._calls)[-PACE - 1 :])[1]

    def cadence(self) -> Optional[Cadence]:
        """(median, p99, gaps) of the seconds between this node's progress() calls (per call, not per step):
        the latest CADENCE_GAPS gaps from the WARMUP_CALLS-th call on; None before CADENCE_MIN are known.
        Writer thread only; worked out again only after a new call."""
        latest = self.latest()
        if latest is None:
            return None
        if self._cadence[0] is latest:
            return self._cadence[1]
        calls = _snapshot(self._calls)
        cadence = _cadence([c[0] for c in calls[WARMUP_CALLS - 1 :][-CADENCE_GAPS - 1 :]])
        self._cadence = (calls[-1] if calls else None, cadence)
        return cadence

    def body(self, instance_id: Callable[[], Optional[str]], now: Optional[float] = None) -> bytes:
        """The node file now. Never raises: a part that fails is left out (and logged once)."""
        now = time.monotonic() if now is None else now
        record: dict[str, Any] = {"node_rank": self.node_rank}
        try:
            record.update(self._fields(instance_id, now))
        except Exception as error:
            if not self._failed:
                self._failed = True
                log.warning("trainwatch: node file for node %d written without details (%s)", self.node_rank, error)
        record.update(self.pod)  # found once at start: nothing here can fail
        record["last_updated"] = p.iso(time.time())
        return p.encode_json({k: v for k, v in record.items() if v is not None})

    def _fields(self, instance_id: Callable[[], Optional[str]], now: float) -> dict[str, Any]:
        fields: dict[str, Any] = {"nodes": self.nodes, "instance_id": instance_id() or None, "hostname": hostname()}
        fields.update(self._timing(now))
        fields.update(self._cadence_fields())
        gpus, problem = self._gpus.sample()
        if gpus is not None:
            fields["gpus"] = self._with_idle(gpus, now)
        if problem:
            fields["gpu_error"] = problem
        return fields

    def _with_idle(self, gpus: list[dict[str, Any]], now: float) -> list[dict[str, Any]]:
        """Adds `idle_s` to each GPU at ≤ IDLE_UTIL %: seconds since the first of the samples in a row that
        found it so. The watchdog reads the file every few minutes; this says when the GPUs went idle."""
        idle: dict[int, float] = {}
        for gpu in gpus:
            util, index = gpu.get("util"), gpu.get("index")
            if isinstance(util, (int, float)) and util <= IDLE_UTIL and isinstance(index, int):
                idle[index] = self._idle_since.get(index, now)
                gpu["idle_s"] = round(now - idle[index], 1)
        self._idle_since = idle
        return gpus

    def _cadence_fields(self) -> dict[str, Any]:
        """v1.3: what the watchdog needs to judge this node against its own pace."""
        out: dict[str, Any] = {"every_s": self.every_s}
        cadence = self.cadence()
        if cadence is not None:
            median, p99, gaps = cadence
            out.update(call_gap_s=round(median, 4), call_gap_p99_s=round(p99, 4), calls=gaps)
        if self.stack_after is not None:
            after = self.stack_after()
            out["stack_after_s"] = None if after is None else round(after, 3)
        return out

    def _timing(self, now: float) -> dict[str, Any]:
        """Step, step time and rates over the time since the previous file (the first: since the first call), so
        a slowdown shows at its true size in the next file rather than after many slow steps."""
        calls = _snapshot(self._calls)
        previous = self._previous
        out = _timing(calls, previous, now)
        if calls:
            self._previous = (now, out)
        return out


def _timing(calls: list[Call], previous: Optional[tuple[float, dict[str, Any]]], now: float) -> dict[str, Any]:
    if not calls:
        return {}
    out: dict[str, Any] = {"step": calls[-1][1]}
    first = 0 if previous is None else bisect.bisect_right([c[0] for c in calls], previous[0])
    if first == len(calls):  # no progress() call since the previous file
        out.update(_without_calls(calls, previous[1] if previous else {}, now))
        return out
    # The calls since the previous file, measured from the call before them: their counts are the work done
    # since it. Without one (the first file, or calls that fell out of the deque) from the first call kept.
    since = max(first - 1, 0)
    per_step, _, _ = _pace(calls[since:])
    if per_step is not None:
        # The median: a checkpoint or an evaluation between two calls is one outlier, not the norm.
        out["step_time_s"] = round(per_step, 4)
    # Up to the latest call; up to now when the step after it is already overdue (no work is done meanwhile).
    end = now if _overdue(calls, now) else calls[-1][0]
    span = end - calls[since][0]
    for i, rate in enumerate(RATES):
        reported = [x for c in calls[first:] if (x := _number(c[4 + i])) is not None]
        counts = [x for c in calls[since + 1 :] if (x := _number(c[2 + i])) is not None]
        if reported:  # the script's own rate, averaged over the calls since the previous file
            out[rate] = round(sum(reported) / len(reported), 3)
        elif counts and span > 0:
            out[rate] = round(sum(counts) / span, 3)
    return out


def _overdue(calls: list[Call], now: float) -> bool:
    """The time since the latest call is longer than this node's usual step (per step of its usual stride);
    never before two calls have shown what usual is."""
    per_step, _, stride = _pace(calls[-PACE - 1 :])
    return per_step is not None and (now - calls[-1][0]) / (stride or 1) > per_step


def _without_calls(calls: list[Call], previous: dict[str, Any], now: float) -> dict[str, Any]:
    """No progress() call since the previous file. While the step in progress is within this node's usual
    time, there is nothing new to say: the previous file's timing stands (a step longer than the writer's
    interval must not read as a stop every other file). Once it is overdue, the node did no work worth a
    call: its rates are 0, and its step time is the time since the last call (per step of its usual
    stride), so a stuck step shows."""
    if not _overdue(calls, now):
        return {k: v for k, v in previous.items() if k == "step_time_s" or k in RATES}
    _, _, stride = _pace(calls[-PACE - 1 :])
    out: dict[str, Any] = {"step_time_s": round((now - calls[-1][0]) / (stride or 1), 4)}
    for i, rate in enumerate(RATES):
        if rate in previous or any(_number(c[2 + i]) is not None or _number(c[4 + i]) is not None for c in calls):
            out[rate] = 0.0
    return out


def _pace(calls: list[Call]) -> tuple[Optional[float], Optional[float], Optional[float]]:
    """Medians over consecutive calls: seconds per step, seconds between calls, steps between calls."""
    pairs = [(b[0] - a[0], b[1] - a[1]) for a, b in zip(calls, calls[1:]) if b[0] > a[0] and b[1] > a[1]]
    if not pairs:
        return None, None, None
    return (
        statistics.median(dt / steps for dt, steps in pairs),
        statistics.median(dt for dt, _ in pairs),
        statistics.median(steps for _, steps in pairs),
    )


def _cadence(times: list[float]) -> Optional[Cadence]:
    """Median and p99 (nearest rank) of the gaps between consecutive times, and their count; None under
    CADENCE_MIN gaps."""
    gaps = sorted(max(0.0, b - a) for a, b in zip(times, times[1:]))
    if len(gaps) < CADENCE_MIN:
        return None
    return statistics.median(gaps), gaps[math.ceil(0.99 * len(gaps)) - 1], len(gaps)


def _snapshot(recent: collections.deque) -> list[Call]:
    # The training thread may append meanwhile; copy() is one C call, and a retry covers free-threaded builds.
    for _ in range(3):
        try:
            return list(recent.copy())
        except RuntimeError:
            continue
    return []


def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value.item() if hasattr(value, "item") else value)
    except Exception:
        return None
    return number if number == number and number not in (float("inf"), float("-inf")) and number >= 0 else None
