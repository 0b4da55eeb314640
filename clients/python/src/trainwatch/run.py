"""A watched training run: heartbeats, progress, and the final record, written to S3 in the background."""

from __future__ import annotations

import atexit
import functools
import logging
import os
import sys
import threading
import time
import traceback
from types import FrameType, TracebackType
from typing import Any, Optional, Type

from . import _protocol as p
from ._bodies import Record, error_text, progress_body, read_tail
from ._environment import env_flag, hostname, instance_id_from_imds
from ._node import NodeBeat
from ._platform import pod_fields
from ._s3 import previous_attempt, s3_client
from ._signals import SigtermHook
from ._stacks import DEFAULT_AFTER, StackWatch, parse_after
from ._writer import Worker

log = logging.getLogger("trainwatch")

__version__ = "0.2.0"

_PLAIN = (int, float, str, bool, type(None))
_get_ident = threading.get_ident


class Run:
    """One training run's heartbeat writer. Create it with `trainwatch.watch(...)`.

    Every method is safe to call from the training loop: none raises on S3 trouble, none waits on S3.
    A disabled run (another rank, or `TRAINWATCH_DISABLED=1`) accepts every call and does nothing,
    except on a node's local rank 0, where it still writes this node's `nodes/{node_rank}.json` (and, while
    its training thread is stuck, `stacks/{node_rank}.json`).
    """

    def __init__(
        self,
        run_id: str,
        bucket: str,
        prefix: str,
        interval: float,
        progress_interval: float,
        metadata: dict[str, Any],
        *,
        enabled: bool = True,
        log_file: Optional[str] = None,
        flush_timeout: float = 10.0,
        handle_sigterm: bool = True,
        s3_client: Any = None,
        env: Optional[dict[str, str]] = None,
        node_rank: Optional[int] = None,
        nodes: Optional[int] = None,
        stack_after: Any = None,
        stacks: Optional[bool] = None,
        platform: Optional[dict[str, Any]] = None,
    ) -> None:
        self.run_id, self.bucket, self.prefix = run_id, bucket, prefix
        self.enabled = enabled
        self.key_prefix = f"{prefix}/{run_id}/" if prefix else f"{run_id}/"
        #: Extra fields for the `_complete` summary, e.g. `run.summary["eval_accuracy"] = 0.91`.
        self.summary: dict[str, Any] = {}
        self._interval, self._progress_interval = interval, progress_interval
        self._log_file = log_file
        self._flush_timeout = flush_timeout
        self._handle_sigterm = handle_sigterm
        self._s3_client = s3_client
        self._env = dict(os.environ) if env is None else env
        meta = dict(metadata)
        self._explicit_phase: Optional[str] = meta.pop("phase", None)
        self._attempt: Optional[int] = meta.pop("attempt", None)
        self._instance_id: Optional[str] = meta.pop("instance_id", None)
        self._nodes_meta: Optional[int] = meta.pop("nodes", nodes)
        #: v1.4: where the run lives on Kubernetes (`trainwatch._platform`: found and checked once, by watch()).
        self._platform: Optional[dict[str, Any]] = platform or None
        nodes = self._nodes_meta
        if log_file and "log_path" not in meta:
            meta["log_path"] = os.path.abspath(log_file)
        self._meta = meta
        self._status = p.STARTING
        self._started = self._finished = self._preempted = False
        self._started_at = self._finished_at = 0.0
        self._worker: Optional[Worker] = None
        self._sigterm = SigtermHook(self._on_sigterm)
        # Progress state, shared with the writer thread without a lock: each field is one atomic
        # assignment, and the worst race writes the same record twice. No lock also means the SIGTERM
        # handler, which may interrupt progress() anywhere, can never wait on one.
        self._latest: Optional[Record] = None
        self._written: Optional[Record] = None  # the record last queued for writing
        self._wake_pending = False  # a throttled record waits and the writer was told
        self._next_progress_at = 0.0
        self._total_steps: Any = None
        self._next_beat = 0.0
        self._log_seen: Optional[tuple[int, int]] = None
        self._warned: set[str] = set()
        #: This node's rank when this process writes `nodes/{node_rank}.json` (local rank 0), else None.
        self.node_rank = node_rank
        self._node = (
            NodeBeat(node_rank, nodes, every_s=interval, pod=pod_fields(self._platform))
            if node_rank is not None
            else None
        )
        self._next_node = 0.0
        # v1.2: the node file's writer also writes the stacks of a stuck training thread. Checked on every rank
        # (a bad setting fails all of them alike), used where the node file is written.
        self._stacks: Optional[StackWatch] = None
        if stacks is not False and env_flag(self._env, "TRAINWATCH_STACKS") is not False:
            raw = self._env.get("TRAINWATCH_STACK_AFTER", "").strip()
            if stack_after is not None:
                after = parse_after(stack_after)
            else:
                after = parse_after(raw, "TRAINWATCH_STACK_AFTER") if raw else DEFAULT_AFTER
            if self._node is not None:
                self._stacks = StackWatch(self._node, lambda: self._worker, after)
                self._node.stack_after = self._stacks.in_force  # v1.3: `stack_after_s` in the node file

    # -- public face ---------------------------------------------------------------------------

    def __enter__(self) -> "Run":
        return self.start()

    def __exit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> bool:
        self.finish(exc)
        return False  # never swallow the training's exception

    def start(self) -> "Run":
        """Starts heartbeats (the `with` statement calls this). Idempotent."""
        if self._started or not (self.enabled or self._node):
            return self
        self._started = True
        self._started_at = time.time()
        if self._s3_client is not None:
            factory: Any = lambda: self._s3_client  # noqa: E731
        else:
            # Imported here, once (~0.15 s): boto3 registers atexit hooks on import, which Python refuses
            # once the program is ending, so a short script's last writes would fail if the thread did it.
            import boto3  # noqa: F401

            factory = functools.partial(s3_client, self._env)
        base = min(1.0, self._interval)
        self._worker = Worker(
            factory,
            self.bucket,
            self.key_prefix,
            # Another rank that is its node's local rank 0 writes only its node file: no attempt to start.
            poll=self._poll if self.enabled else self._poll_node,
            start_with=self._begin if self.enabled else None,
            base_delay=base,
            max_delay=min(60.0, max(1.0, 5 * self._interval)),
        )
        if self._handle_sigterm and self.enabled:
            self._sigterm.install()
        atexit.register(self._atexit)
        if self._stacks is not None:
            self._stacks.begin(time.monotonic(), _get_ident())
        self._worker.start()
        return self

    def progress(self, step: int, total_steps: Optional[int] = None, **metrics: Any) -> None:
        """Records progress; cheap enough for every step (writes are throttled to `progress_interval`).

        Every metric goes to `progress.json`. `samples=` / `tokens=` (what this node processed since its
        previous call) or `samples_per_s=` / `tokens_per_s=` (its rates) also give the node file its throughput.
        """
        if not self._started or self._finished:
            return
        if not self.enabled:  # only this node's file: step timing, nothing else
            try:
                self._node.record(time.monotonic(), int(step), metrics)  # type: ignore[union-attr]
                stacks = self._stacks
                if stacks is not None:
                    stacks.thread = _get_ident()
                    if stacks.out:  # a stacks file is out: the writer deletes it
                        self._worker.wake()  # type: ignore[union-attr]
            except Exception as error:
                self._warn_once("progress", "trainwatch: progress(%r) ignored: %s", step, error)
            return
        try:
            if total_steps is not None:
                self._total_steps = int(total_steps)
            for name, value in metrics.items():
                # Keep no autograd graph alive through a tensor we hold until the next write.
                if type(value) not in _PLAIN and hasattr(value, "detach"):
                    metrics[name] = value.detach()
            record = (int(step), self._total_steps, time.time(), metrics)
            if record[0] < 0:
                raise ValueError(f"step must be >= 0, not {step!r}")
            now = time.monotonic()
            if self._node is not None:
                self._node.record(now, record[0], metrics)
                stacks = self._stacks
                if stacks is not None:
                    stacks.thread = _get_ident()
                    if stacks.out:  # a stacks file is out: the writer deletes it
                        self._worker.wake()  # type: ignore[union-attr]
            first = self._latest is None
            self._latest = record  # first, so the writer sees it whichever branch follows
            if now >= self._next_progress_at:
                self._next_progress_at = now + self._progress_interval
                self._written = record
                self._worker.put(p.PROGRESS, functools.partial(progress_body, record))  # type: ignore[union-attr]
            elif not self._wake_pending:
                # Throttled: the writer writes it (or a later one) when the interval is up.
                self._wake_pending = True
                self._worker.wake()  # type: ignore[union-attr]
            if first:
                self._status = p.RUNNING
                self.heartbeat()
        except Exception as error:
            self._warn_once("progress", "trainwatch: progress(%r) ignored: %s", step, error)

    def wants_progress(self) -> bool:
        """True when the next `progress()` call would be written: compute costly metrics only then."""
        # A node file writer writes no metrics: never make the caller compute (and sync the GPU for) them.
        return self.enabled and self._started and not self._finished and time.monotonic() >= self._next_progress_at

    def phase(self, name: str) -> "_Phase":
        """Sets the phase now (e.g. `checkpointing`, which the watchdog gives more time); as a context
        manager, puts the previous phase back on exit."""
        previous = self._explicit_phase
        self._explicit_phase = name
        self.heartbeat()
        return _Phase(self, previous)

    @property
    def current_phase(self) -> str:
        """The explicit phase, else `setup` until the first `progress()` call, then `training`."""
        if self._explicit_phase:
            return self._explicit_phase
        return "training" if self._latest is not None else "setup"

    @property
    def status(self) -> str:
        return self._status

    def heartbeat(self) -> None:
        """Writes metadata.json soon, instead of at the next interval."""
        if self._started and self.enabled and self._worker is not None:
            self._next_beat = 0.0
            self._worker.wake()

    def finish(self, error: Optional[BaseException] = None) -> None:
        """Writes the final record: `_complete`, or `_error` when `error` is given. Idempotent."""
        if not self._started or self._finished:
            return
        self._finished = True
        self._finished_at = time.time()
        self._sigterm.uninstall()
        atexit.unregister(self._atexit)
        worker = self._worker
        assert worker is not None
        if self._stacks is not None and _is_success(error) and not self._preempted:
            # A pause at the end (a last evaluation, a final save) is no hang: a run that ends well leaves no
            # stacks. After a failure they stay, as evidence of where it hung.
            self._stacks.close()
        if not self.enabled:  # a node file writer: its run files are rank 0's to write; its last state lands
            worker.put(self._node.name, functools.partial(self._node.body, self._instance))  # type: ignore[union-attr]
            worker.close(self._flush_timeout)
            return
        if self._preempted:
            # `_error` says so already; a graceful exit after SIGTERM is not a completion.
            worker.put(p.METADATA, self._metadata_body)
        elif _is_success(error):
            self._status = p.COMPLETED
            self._write_final(p.COMPLETE, self._complete_body, "application/json")
        else:
            self._status = p.FAILED
            self._write_final(p.ERROR, error_text(error, self._context()).encode(), "text/plain; charset=utf-8")
        worker.close(self._flush_timeout)

    # -- writer-thread side ------------------------------------------------------------------

    def _begin(self, s3: Any) -> None:
        """First thing on the writer thread: find the instance and the attempt, clear the last attempt's end."""
        self._instance()
        if self._attempt is None:
            self._attempt = previous_attempt(s3, self.bucket, self.key_prefix + p.METADATA) + 1
        for name in (p.ERROR, p.COMPLETE):
            s3.delete_object(Bucket=self.bucket, Key=self.key_prefix + name)
        log.info("trainwatch: watching s3://%s/%s (attempt %d)", self.bucket, self.key_prefix, self._attempt)

    def _poll(self, now: float) -> float:
        worker = self._worker
        assert worker is not None
        if now >= self._next_beat:
            self._next_beat = now + self._interval
            self._queue_log_tail(force=False)
            worker.put(p.METADATA, self._metadata_body)
        self._wake_pending = False  # before reading _latest: a newer record then wakes us again
        latest = self._latest
        waiting = latest is not None and latest is not self._written
        if waiting and now >= self._next_progress_at:
            self._next_progress_at = now + self._progress_interval
            self._written = latest
            worker.put(p.PROGRESS, functools.partial(progress_body, latest))
            waiting = False
        wait = self._next_progress_at - now if waiting else self._interval
        return min(wait, self._next_beat - now, self._poll_node(now))

    def _poll_node(self, now: float) -> float:
        """Queues this node's file every interval; the body (GPU telemetry included) is made at write time.
        Then the stacks file, which is written, rewritten or deleted as the training thread's progress says."""
        if self._node is None or self._worker is None:
            return self._interval
        if now >= self._next_node:
            self._next_node = now + self._interval
            self._worker.put(self._node.name, functools.partial(self._node.body, self._instance))
        wait = self._next_node - now
        if self._stacks is not None:
            try:
                wait = min(wait, self._stacks.poll(now))
            except Exception as error:  # the node file goes on; the stacks are looked at again next interval
                self._warn_once("stacks", "trainwatch: stacks file skipped: %s", error)
        return wait

    def _instance(self) -> str:
        """The instance id: configured, else IMDSv2 (asked once, on the writer thread); "" off EC2."""
        if self._instance_id is None:
            self._instance_id = instance_id_from_imds(self._env) or ""
        return self._instance_id

    def _metadata_body(self) -> bytes:
        record: dict[str, Any] = {
            **self._meta,
            "run_id": self.run_id,
            "status": self._status,
            "phase": self.current_phase,
            "last_update": p.iso(time.time()),
            "started_at": p.iso(self._started_at),
            "attempt": self._attempt,
            "instance_id": self._instance_id or None,
            "hostname": hostname(),
            "nodes": self._nodes_meta,
            "platform": self._platform,
            "pid": os.getpid(),
            "client": f"trainwatch-python/{__version__}",
        }
        if self._finished_at:
            record["finished_at"] = p.iso(self._finished_at)
        # The watchdog's schema types these fields as strings when present: leave out what we do not know.
        return p.encode_json({k: v for k, v in record.items() if v is not None})

    def _complete_body(self) -> bytes:
        step, total, _, metrics = self._latest or (None, self._total_steps, 0.0, {})
        summary = {
            "run_id": self.run_id,
            "status": p.COMPLETED,
            "attempt": self._attempt,
            "started_at": p.iso(self._started_at),
            "finished_at": p.iso(self._finished_at),
            "duration_s": round(self._finished_at - self._started_at, 3),
            "step": step,
            "total_steps": total,
            **({"loss": metrics["loss"]} if "loss" in metrics else {}),
            **self.summary,
        }
        return p.encode_json(summary)

    def _queue_log_tail(self, force: bool) -> None:
        if not self._log_file or self._worker is None:
            return
        try:
            stat = os.stat(self._log_file)
        except OSError:
            return
        seen = (stat.st_size, stat.st_mtime_ns)
        if force or seen != self._log_seen:
            self._log_seen = seen
            self._worker.put(p.LOG, functools.partial(read_tail, self._log_file), "text/plain; charset=utf-8")

    # -- endings -------------------------------------------------------------------------------

    def _write_final(self, sentinel: str, body: Any, content_type: str) -> None:
        """Queues, in this order: the log tail, the latest progress, the sentinel, the final metadata."""
        worker = self._worker
        assert worker is not None
        self._queue_log_tail(force=True)
        latest = self._latest
        if latest is not None:
            self._written = latest
            worker.put(p.PROGRESS, functools.partial(progress_body, latest))
        worker.put(sentinel, body, content_type)
        worker.put(p.METADATA, self._metadata_body)

    def _on_sigterm(self, frame: Optional[FrameType]) -> None:
        if self._finished or self._worker is None:
            return
        self._preempted = True
        self._status = p.PREEMPTED
        text = (
            "Preempted: received SIGTERM (signal 15): the instance is being reclaimed (spot interruption), "
            "the job was cancelled (scancel), or the machine is shutting down.\n"
            f"{self._context()}\n\nStack of the main thread when the signal arrived:\n"
            + "".join(traceback.format_stack(frame))
        )
        self._write_final(p.ERROR, text.encode(), "text/plain; charset=utf-8")
        self._worker.flush(self._flush_timeout)

    def _atexit(self) -> None:
        # Reached only when the program ends without finish() (no `with` block). An uncaught exception
        # leaves itself in sys.last_value before atexit runs.
        self.finish(getattr(sys, "last_value", None))

    def _context(self) -> str:
        step, total = (self._latest[0], self._total_steps) if self._latest else (None, self._total_steps)
        where = f"step {step}" + (f" of {total}" if total else "") if step is not None else "before the first step"
        return (
            f"trainwatch: run {self.run_id}, attempt {self._attempt or '?'}, {where}, phase {self.current_phase}, "
            f"host {hostname()}, pid {os.getpid()}"
        )

    def _warn_once(self, key: str, message: str, *args: Any) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message, *args)


class _Phase:
    """What `run.phase(name)` returns: the phase is already set; `with` restores the previous one."""

    def __init__(self, run: Run, previous: Optional[str]) -> None:
        self._run, self._previous = run, previous

    def __enter__(self) -> "_Phase":
        return self

    def __exit__(self, *_: Any) -> None:
        self._run._explicit_phase = self._previous
        self._run.heartbeat()


def _is_success(error: Optional[BaseException]) -> bool:
    if error is None:
        return True
    return isinstance(error, SystemExit) and error.code in (0, None)
