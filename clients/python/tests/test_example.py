"""examples/train.py, the pretend training loop, is watched from start to end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from _support import RunFiles, wait_for

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "train.py"


def train(run_id: str, bucket: str, *flags: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    # No PYTHONPATH: the example finds the client in the checkout by itself.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, str(EXAMPLE), "--run-id", run_id, "--bucket", bucket, "--step-time", "0.002",
         "--interval", "0.05", *flags],
        env=env, capture_output=True, text=True, timeout=timeout,
    )


def test_the_example_completes_with_progress_checkpoints_and_a_log_tail(bucket: str, run_id: str, files: RunFiles,
                                                                         tmp_path: Path):
    log_file = tmp_path / "train.log"
    result = train(run_id, bucket, "--steps", "40", "--checkpoint-every", "20", "--log-file", str(log_file))
    assert result.returncode == 0, result.stderr
    assert files.json("progress.json")["step"] == 40
    assert files.json("_complete")["final_loss"] > 0
    assert files.json("metadata.json")["job_name"] == "example-train"
    assert "step 40/40" in files.text("logs/training_log_latest.txt")


def test_the_example_fails_like_a_cuda_oom(bucket: str, run_id: str, files: RunFiles):
    result = train(run_id, bucket, "--steps", "40", "--fail", "oom", "--fail-at", "7")
    assert result.returncode == 1 and "OutOfMemoryError" in result.stderr
    assert files.text("_error").startswith("OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert files.json("progress.json")["step"] == 7


def test_a_hung_example_keeps_heartbeating_without_progress(bucket: str, run_id: str, files: RunFiles):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    child = subprocess.Popen(
        [sys.executable, str(EXAMPLE), "--run-id", run_id, "--bucket", bucket, "--step-time", "0.002",
         "--interval", "0.05", "--steps", "40", "--hang-at", "5"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: (g := files.json("progress.json")) and g["step"] == 5, what="progress up to the hang")
        first = wait_for(lambda: files.json("metadata.json"))["last_update"]
        wait_for(lambda: files.json("metadata.json")["last_update"] != first, what="a later heartbeat")
        assert files.json("progress.json")["step"] == 5  # alive, not advancing: what stall detection catches
    finally:
        child.terminate()
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGTERM
    assert files.json("metadata.json")["status"] == "preempted"
