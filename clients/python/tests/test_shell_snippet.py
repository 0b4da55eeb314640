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

LAUNCHER_VARS = ("RANK", "LOCAL_RANK", "GROUP_RANK", "NODE_RANK", "SLURM_NODEID", "SLURM_LOCALID", "SLURM_NNODES",
                 "NNODES", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "SLURM_PROCID", "TRAINWATCH_NODE_FILES")

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


def test_the_snippet_places_each_launchers_process_like_the_python_client():
    from test_nodes import LAUNCHERS  # the table both clients and the shell CLI follow

    script = f"source {SNIPPET}\n" + "".join(
        f"( {' '.join(f'export {k}={v};' for k, v in env.items())} tw_topology; "
        f"echo \"$TW_NODE_RANK|$TW_NODES|$TW_LOCAL_RANK\" )\n"
        for _, env, _ in LAUNCHERS
    )
    clean = {k: v for k, v in os.environ.items() if k not in LAUNCHER_VARS}
    out = subprocess.run(["bash", "-c", script], env={**clean, "TRAINWATCH_BUCKET": "b", "TRAINWATCH_RUN_ID": "r"},
                         capture_output=True, text=True, check=True, timeout=30).stdout.splitlines()
    got = [tuple(int(x) if x else None for x in line.split("|")) for line in out]
    assert got == [tuple(expected) for _, _, expected in LAUNCHERS]


def test_every_nodes_local_rank_0_writes_its_node_file_and_only_rank_0_the_runs(bucket: str, run_id: str,
                                                                               files: RunFiles, tmp_path: Path):
    from test_nodes import assert_the_watchdog_accepts

    gpus = str(REPO / "test" / "fixtures" / "bin" / "xid79")
    clean = {k: v for k, v in os.environ.items() if k not in LAUNCHER_VARS}
    torchrun = {"LOCAL_WORLD_SIZE": "8", "WORLD_SIZE": "16", "TRAINWATCH_INSTANCE_ID": "i-0abc1234def567890",
                "PATH": f"{gpus}:{os.environ['PATH']}"}
    node_1 = subprocess.Popen(
        ["bash", "-c", f"source {SNIPPET}\ntw_start\ntw_progress 10\nsleep 0.2\ntw_progress 20\ntw_node\ntw_complete"],
        env={**clean, **torchrun, "TRAINWATCH_BUCKET": bucket, "TRAINWATCH_RUN_ID": run_id, "TRAINWATCH_INTERVAL": "60",
             "RANK": "8", "LOCAL_RANK": "0", "GROUP_RANK": "1"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, err = node_1.communicate(timeout=90)
    assert (node_1.returncode, err) == (0, "")
    assert files.keys() == ["nodes/1.json"]  # another rank: no metadata.json, no _complete
    node = files.json("nodes/1.json")
    assert node["node_rank"] == 1 and node["nodes"] == 2 and node["step"] == 20
    assert node["instance_id"] == "i-0abc1234def567890" and 0.01 < node["step_time_s"] < 1
    assert node["gpus"][3] == {"index": 3, "error": "GPU requires reset"} and node["gpus"][0]["power_w"] == 71.0
    assert_the_watchdog_accepts(tmp_path, files.text("nodes/1.json"), rank=1)

    other = bash("tw_start\ntw_complete", run_id, bucket, **torchrun, RANK="9", LOCAL_RANK="1", GROUP_RANK="1")
    assert other.wait(timeout=60) == 0
    head = bash("tw_start\ntw_complete", run_id, bucket, **torchrun, RANK="0", LOCAL_RANK="0", GROUP_RANK="0")
    assert head.wait(timeout=90) == 0
    assert files.keys() == ["_complete", "metadata.json", "nodes/0.json", "nodes/1.json"]
    assert files.json("metadata.json")["nodes"] == 2
    assert_the_watchdog_accepts(tmp_path, files.text("nodes/0.json"), rank=0)
