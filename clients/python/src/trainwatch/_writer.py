"""One background thread that does all of the client's S3 I/O, so the training loop never waits on it.

Writes are queued per key and the latest one wins: a slow or unreachable S3 delays heartbeats but
never piles them up, never blocks `progress()`, and never raises into the caller. Failures are
logged and retried with exponential backoff.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from typing import Any, Callable, Optional, Union

log = logging.getLogger("trainwatch")

#: What a put writes: bytes, or a function called at write time (so e.g. `last_update` is fresh).
Body = Union[bytes, Callable[[], bytes]]


class _Op:
    __slots__ = ("kind", "body", "content_type")

    def __init__(self, kind: str, body: Optional[Body] = None, content_type: str = "") -> None:
        self.kind, self.body, self.content_type = kind, body, content_type


class Worker:
    """Runs queued S3 writes in order (one pending write per key, latest wins) and calls `poll`.

    `poll(now)` is the owner's periodic hook (heartbeats, trailing progress writes); it returns how many
    seconds may pass before it wants to be called again. `start_with` runs first, before any write,
    and is retried like one.
    """

    def __init__(
        self,
        client_factory: Callable[[], Any],
        bucket: str,
        key_prefix: str,
        poll: Callable[[float], float],
        start_with: Optional[Callable[[Any], None]] = None,
        base_delay: float = 1.0,
        max_delay: float = 60.0,
    ) -> None:
        self._client_factory = client_factory
        self._client: Any = None
        self.bucket, self.key_prefix = bucket, key_prefix
        self._poll = poll
        self._start_with = start_with
        self._base_delay, self._max_delay = base_delay, max_delay
        # Reentrant: a signal handler may run on the main thread while it is inside submit().
        self._cond = threading.Condition(threading.RLock())
        self._pending: dict[str, _Op] = {}
        self._busy = False
        self._stopping = False
        self._poll_requested = False
        self._failures = 0
        self._retry_at = 0.0
        self._thread = threading.Thread(target=self._run, name="trainwatch-writer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def put(self, name: str, body: Body, content_type: str = "application/json") -> None:
        """Queues a write of `{key_prefix}{name}`, replacing any pending write of the same file."""
        self._submit(name, _Op("put", body, content_type))

    def delete(self, name: str) -> None:
        """Queues a delete of `{key_prefix}{name}`."""
        self._submit(name, _Op("delete"))

    def wake(self) -> None:
        """Makes the thread call `poll` now rather than at the time it last asked for."""
        with self._cond:
            self._poll_requested = True
            self._cond.notify()

    def flush(self, timeout: float) -> bool:
        """Waits until every queued write is done (True) or `timeout` seconds pass (False)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            self._cond.notify()
            while self._pending or self._busy or self._start_with is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not self._thread.is_alive():
                    return False
                self._cond.wait(min(left, 0.05))
            return True

    def close(self, timeout: float) -> bool:
        """Flushes for up to `timeout` seconds, then stops the thread; True when nothing was left unwritten."""
        done = self.flush(timeout)
        with self._cond:
            self._stopping = True
            self._cond.notify()
        if not done:
            log.warning(
                "trainwatch: gave up on %d unwritten file(s) under s3://%s/%s after %.0fs",
                len(self._pending),
                self.bucket,
                self.key_prefix,
                timeout,
            )
        return done

    def _submit(self, name: str, op: _Op) -> None:
        with self._cond:
            # Latest wins, and goes last: writes happen in the order they were last asked for.
            self._pending.pop(name, None)
            self._pending[name] = op
            self._cond.notify()

    def _run(self) -> None:
        try:
            self._s3()  # build the client now, while the program is surely still running
        except Exception as error:
            log.warning("trainwatch: could not create the S3 client (%s); will retry", error)
        next_poll = 0.0
        while True:
            with self._cond:
                while True:
                    if self._stopping:
                        return
                    now = time.monotonic()
                    if now >= next_poll or self._poll_requested:
                        break
                    if now >= self._retry_at and (self._pending or self._start_with is not None):
                        break
                    wake_at = next_poll if now >= self._retry_at else min(next_poll, self._retry_at)
                    self._cond.wait(max(0.0, wake_at - now))
                polling = now >= next_poll or self._poll_requested
                self._poll_requested = False
            if polling:
                next_poll = now + self._call_poll(now)
            if now >= self._retry_at:
                self._drain()

    def _call_poll(self, now: float) -> float:
        try:
            return max(0.01, self._poll(now))
        except Exception:
            log.exception("trainwatch: heartbeat hook failed")
            return 1.0

    def _drain(self) -> None:
        """Performs queued work in order until the queue is empty or a write fails."""
        while True:
            with self._cond:
                if self._stopping:
                    return
                if self._start_with is not None:
                    name, op = "", None
                elif self._pending:
                    name = next(iter(self._pending))
                    op = self._pending.pop(name)
                else:
                    self._cond.notify_all()
                    return
                self._busy = True
            try:
                if op is None:
                    self._start_with(self._s3())  # type: ignore[misc]
                else:
                    self._do(name, op)
            except Exception as error:
                with self._cond:
                    self._busy = False
                    # Put it back unless a newer write of the same file arrived meanwhile; keep it first.
                    if op is not None and name not in self._pending:
                        self._pending = {name: op, **self._pending}
                    self._backoff(name or "the attempt start (clearing _error and _complete)", error)
                    self._cond.notify_all()
                return
            with self._cond:
                if op is None:
                    self._start_with = None
                self._busy = False
                self._recovered()
                self._cond.notify_all()

    def _do(self, name: str, op: _Op) -> None:
        key = self.key_prefix + name
        if op.kind == "delete":
            self._s3().delete_object(Bucket=self.bucket, Key=key)
            return
        body = op.body() if callable(op.body) else op.body
        self._s3().put_object(Bucket=self.bucket, Key=key, Body=body, ContentType=op.content_type)

    def _s3(self) -> Any:
        # Created on this thread (not in watch()), so building a boto3 client never delays training.
        if self._client is None:
            self._client = self._client_factory()
        return self._client

    def _backoff(self, what: str, error: Exception) -> None:
        self._failures += 1
        delay = min(self._max_delay, self._base_delay * 2 ** (self._failures - 1)) * random.uniform(0.8, 1.2)
        self._retry_at = time.monotonic() + delay
        # One warning per outage (and one per 20 failures after), not one per heartbeat.
        level = logging.WARNING if self._failures == 1 or self._failures % 20 == 0 else logging.DEBUG
        log.log(
            level,
            "trainwatch: could not write %s to s3://%s/%s (failure %d: %s); retrying in %.1fs",
            what,
            self.bucket,
            self.key_prefix,
            self._failures,
            error,
            delay,
        )

    def _recovered(self) -> None:
        if self._failures:
            log.warning("trainwatch: S3 writes work again after %d failure(s)", self._failures)
        self._failures = 0
        self._retry_at = 0.0
