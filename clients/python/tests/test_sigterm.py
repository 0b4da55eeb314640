"""SIGTERM (spot interruption, scancel) is recorded as preempted, then does what it did before."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


from _support import RunFiles, wait_for

CHILD = Path(__file__).with_name("_sigterm_child.py")
SRC = Path(__file__).parents[1] / "src"


def run_child(run_id: str, bucket: str, mode: str) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    child = subprocess.Popen(
        [sys.executable, str(CHILD), run_id, bucket, mode], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert child.stdout is not None
        for line in child.stdout:
            if line.strip() == "READY":
                break
        child.send_signal(signal.SIGTERM)
        out, _ = child.communicate(timeout=15)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, out


def assert_preempted(files: RunFiles) -> None:
    metadata = wait_for(lambda: files.json("metadata.json"))
    assert metadata["status"] == "preempted"
    error = files.text("_error")
    assert error.startswith("Preempted: received SIGTERM (signal 15)")
    assert "Stack of the main thread" in error and "_sigterm_child.py" in error
    assert files.text("_complete") is None


def test_sigterm_is_recorded_as_preempted_and_then_kills_as_the_default_would(bucket: str, run_id: str,
                                                                              files: RunFiles):
    code, out = run_child(run_id, bucket, "default")
    assert code == -signal.SIGTERM, out  # died of the signal: a shell sees 143, as without trainwatch
    assert "left the with block" not in out
    assert_preempted(files)


def test_sigterm_chains_to_the_users_own_handler(bucket: str, run_id: str, files: RunFiles):
    code, out = run_child(run_id, bucket, "exit")
    assert code == 3, out
    assert "user handler ran" in out
    assert_preempted(files)


def test_a_graceful_stop_after_sigterm_stays_preempted_not_completed(bucket: str, run_id: str, files: RunFiles):
    code, out = run_child(run_id, bucket, "graceful")
    assert code == 0, out
    assert "user handler ran" in out and "left the with block" in out
    assert_preempted(files)
    assert "finished_at" in files.json("metadata.json")


def test_a_sigterm_arriving_inside_progress_is_recorded_at_once_and_chained(bucket: str, run_id: str,
                                                                              files: RunFiles):
    import trainwatch

    received: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: received.append(signum))

    class SignalOnRead:
        """A metric whose conversion delivers SIGTERM, so the handler runs in the middle of progress()."""

        def detach(self) -> float:
            os.kill(os.getpid(), signal.SIGTERM)
            return 0.5

    try:
        run = trainwatch.watch(run_id, bucket, interval=0.05, flush_timeout=5).start()
        run.progress(2)
        started = time.monotonic()
        run.progress(3, loss=SignalOnRead())
        elapsed = time.monotonic() - started
        assert received == [signal.SIGTERM]  # our handler chained to the one installed before watch()
        # Recorded by the handler itself, well within flush_timeout: nothing it needs was held by progress().
        assert elapsed < 3
        assert files.text("_error").startswith("Preempted: received SIGTERM")
        assert files.json("metadata.json")["status"] == "preempted"
        run.finish()
        assert files.json("metadata.json")["status"] == "preempted"
    finally:
        signal.signal(signal.SIGTERM, previous)
