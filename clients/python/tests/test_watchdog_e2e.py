"""End to end: runs watched by the Python client, judged by the watchdog's own CLI (`sweep`, `status --json`)."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

import trainwatch
from _support import RunFiles, wait_for

REPO = Path(__file__).resolve().parents[3]
FAST = {"interval": 0.05, "flush_timeout": 5.0}


@pytest.fixture
def watchdog(bucket: str, moto_endpoint: str):
    """`node bin/trainwatch.mjs ...` against this test's bucket and a fresh table on the emulator."""
    env = {
        **os.environ,
        "AWS_ENDPOINT_URL": moto_endpoint,
        "TRAINWATCH_BUCKET": bucket,
        "TRAINWATCH_TABLE": f"tw-{uuid.uuid4().hex[:12]}",
    }

    def cli(*args: str) -> str:
        result = subprocess.run(
            ["node", "bin/trainwatch.mjs", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, f"trainwatch {' '.join(args)} exited {result.returncode}:\n{result.stderr}"
        return result.stdout

    cli("setup-local")  # the bucket exists already; this adds the table
    return cli


def states(cli: Any) -> dict[str, dict[str, Any]]:
    cli("sweep")
    return {row["run_id"]: row for row in json.loads(cli("status", "--json"))}


def test_the_watchdog_sees_a_watched_run_running_then_succeeded_and_a_cuda_oom_as_failed(
    watchdog: Any, s3: Any, bucket: str, run_id: str, files: RunFiles
):
    oom_id = f"{run_id}-oom"
    with trainwatch.watch(run_id, bucket, job_name="e2e", **FAST) as run:
        run.progress(42, total_steps=100, loss=0.7)
        wait_for(lambda: (g := files.json("progress.json")) and g["step"] == 42, what="progress.json")
        running = states(watchdog)[run_id]
        assert running["state"] == "RUNNING", running
        assert running["step"] == 42 and running["total_steps"] == 100 and running["attempt"] == 1

        with pytest.raises(RuntimeError):
            with trainwatch.watch(oom_id, bucket, **FAST) as failing:
                failing.progress(3, total_steps=100)
                raise RuntimeError(
                    "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB"
                )
        run.progress(100, total_steps=100, loss=0.1)

    after = states(watchdog)
    assert after[run_id]["state"] == "SUCCEEDED", after[run_id]
    assert after[oom_id]["state"] == "FAILED", after[oom_id]
    assert after[oom_id]["error_type"] == "oom"
    error = RunFiles(s3, bucket, oom_id).text("_error")
    assert "Traceback (most recent call last)" in error and "CUDA out of memory" in error
