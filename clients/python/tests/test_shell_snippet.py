"""examples/trainwatch.sh, the bash snippet for scripts that are not Python, with the real AWS CLI.

Each AWS CLI call takes about a second, so these tests make as few as they can.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

from _support import RunFiles
from test_protocol_schema import CHECK, REPO

SNIPPET = REPO / "examples" / "trainwatch.sh"


def bash(script: str, run_id: str, bucket: str, **extra: str) -> subprocess.Popen[str]:
    assert shutil.which("aws"), "these tests run the AWS CLI (`aws`), which is not on PATH"
    env = {**os.environ, "TRAINWATCH_BUCKET": bucket, "TRAINWATCH_RUN_ID": run_id, "TRAINWATCH_INTERVAL": "60",
           **extra}
    return subprocess.Popen(["bash", "-c", f"source {SNIPPET}\n{script}"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_completes_then_a_new_attempt_clears_it_and_is_preempted_by_sigterm(bucket: str, run_id: str,
                                                                            files: RunFiles, tmp_path: Path):
    first = bash("tw_start\ntw_progress 5 10 0.5\ntw_complete '{\"acc\":0.9}'", run_id, bucket,
                 TRAINWATCH_JOB_NAME='say "hi"')
    _, err = first.communicate(timeout=60)
    assert (first.returncode, err) == (0, "")
    metadata = files.json("metadata.json")
    assert metadata["status"] == "completed" and metadata["attempt"] == 1 and metadata["job_name"] == 'say "hi"'
    assert files.json("progress.json") == {"step": 5, "total_steps": 10, "loss": 0.5,
                                           "last_updated": files.json("progress.json")["last_updated"]}
    assert files.json("_complete")["summary"] == {"acc": 0.9}
    paths = []
    for kind, name in [("metadata", "metadata.json"), ("progress", "progress.json"), ("complete", "_complete")]:
        (tmp_path / name).write_text(files.text(name))
        paths.append((kind, str(tmp_path / name)))
    checked = subprocess.run(["node", "--import", "tsx/esm", "--input-type=module", "-e", CHECK, json.dumps(paths)],
                             cwd=REPO, capture_output=True, text=True, timeout=60, check=True)
    assert all(v["ok"] for v in json.loads(checked.stdout)), checked.stdout

    second = bash("tw_start\nsleep 60 >/dev/null 2>&1 &\necho READY $!\nwait", run_id, bucket)
    training = 0
    try:
        assert second.stdout is not None
        ready, training = second.stdout.readline().split()
        assert ready == "READY"
        assert files.text("_complete") is None
        second.send_signal(signal.SIGTERM)
        second.communicate(timeout=60)
    finally:
        if second.poll() is None:
            second.kill()
        if training:  # the pretend training process (SIGTERM would reach it from a scheduler, not from us)
            try:
                os.kill(int(training), signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert second.returncode == -signal.SIGTERM  # died of it, as bash without the trap would have
    assert files.text("_error").startswith("Preempted: received SIGTERM")
    metadata = files.json("metadata.json")
    assert metadata["status"] == "preempted" and metadata["attempt"] == 2


def test_writes_an_error_read_from_stdin(bucket: str, run_id: str, files: RunFiles):
    child = bash("printf 'Traceback...\\nRuntimeError: CUDA out of memory.\\n' | tw_error", run_id, bucket)
    assert child.wait(timeout=60) == 0
    assert files.text("_error") == "Traceback...\nRuntimeError: CUDA out of memory.\n"
    assert files.json("metadata.json")["status"] == "failed"
