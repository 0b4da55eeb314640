"""This node's file, `nodes/{node_rank}.json` (protocol v1.1): alive, step timing, throughput, GPU telemetry.

`record()` runs on the training thread (a deque append); everything else runs on the writer thread.
"""

from __future__ import annotations

import collections
import logging
import statistics
import time
from typing import Any, Callable, Optional

from . import _protocol as p
from ._environment import hostname
from ._gpus import GpuSampler

log = logging.getLogger("trainwatch")

#: How many recent progress() calls step timing and throughput are judged over.
WINDOW = 64
#: progress() metrics that count what this node processed since its previous progress() call.
COUNTS = ("samples", "tokens")
#: progress() metrics that already are this node's rates.
RATES = ("samples_per_s", "tokens_per_s")
#: A GPU at or below this utilisation (%) is idle; `idle_s` says for how long, at every sample since.
IDLE_UTIL = 5


class NodeBeat:
    def __init__(self, node_rank: int, nodes: Optional[int], gpus: Optional[GpuSampler] = None) -> None:
        self.node_rank, self.nodes = node_rank, nodes
        self._gpus = gpus or GpuSampler()
        # (monotonic seconds, step, samples, tokens, samples_per_s, tokens_per_s) per progress() call.
        self._recent: collections.deque[tuple[Any, ...]] = collections.deque(maxlen=WINDOW)
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
            self._recent.append((now, step, get("samples"), get("tokens"), get("samples_per_s"), get("tokens_per_s")))
        else:
            self._recent.append((now, step, None, None, None, None))

    def body(self, instance_id: Callable[[], Optional[str]]) -> bytes:
        """The node file now. Never raises: a part that fails is left out (and logged once)."""
        record: dict[str, Any] = {"node_rank": self.node_rank}
        try:
            record.update(self._fields(instance_id))
        except Exception as error:
            if not self._failed:
                self._failed = True
                log.warning("trainwatch: node file for node %d written without details (%s)", self.node_rank, error)
        record["last_updated"] = p.iso(time.time())
        return p.encode_json({k: v for k, v in record.items() if v is not None})

    def _fields(self, instance_id: Callable[[], Optional[str]]) -> dict[str, Any]:
        fields: dict[str, Any] = {"nodes": self.nodes, "instance_id": instance_id() or None, "hostname": hostname()}
        fields.update(self._timing())
        gpus, problem = self._gpus.sample()
        if gpus is not None:
            fields["gpus"] = self._with_idle(gpus, time.monotonic())
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

    def _timing(self) -> dict[str, Any]:
        recent = _snapshot(self._recent)
        if not recent:
            return {}
        out: dict[str, Any] = {"step": recent[-1][1]}
        per_step = [
            (b[0] - a[0]) / (b[1] - a[1]) for a, b in zip(recent, recent[1:]) if b[1] > a[1] and b[0] > a[0]
        ]
        if per_step:
            # The median: a checkpoint or an evaluation between two calls is one outlier, not the norm.
            out["step_time_s"] = round(statistics.median(per_step), 4)
        for i, rate in enumerate(RATES):
            reported = _number(recent[-1][4 + i])
            # Else this node's rate between consecutive calls, the median again, from the counts it was given.
            measured = [
                count / (b[0] - a[0])
                for a, b in zip(recent, recent[1:])
                if b[0] > a[0] and (count := _number(b[2 + i])) is not None
            ]
            if reported is not None:
                out[rate] = round(reported, 3)
            elif measured:
                out[rate] = round(statistics.median(measured), 3)
        return out


def _snapshot(recent: collections.deque) -> list[tuple[Any, ...]]:
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
