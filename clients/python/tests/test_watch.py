"""What `trainwatch.watch()` writes, against the moto server."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import boto3
import pytest
from botocore.config import Config

import trainwatch
from _support import RunFiles, wait_for

FAST = {"interval": 0.05, "flush_timeout": 5.0}


def counting_client(endpoint: str, counts: dict[str, int]) -> Any:
    """A boto3 S3 client that counts PutObject calls per file name."""
    client = boto3.client("s3", endpoint_url=endpoint, config=Config(s3={"addressing_style": "path"}))

    def count(params: dict[str, Any], **_: Any) -> None:
        name = params["Key"].rsplit("/", 1)[-1]
        counts[name] = counts.get(name, 0) + 1

    client.meta.events.register("before-parameter-build.s3.PutObject", count)
    return client


def test_writes_heartbeats_while_running_and_complete_on_clean_exit(bucket: str, run_id: str, files: RunFiles):
    with trainwatch.watch(run_id, bucket, job_name="demo", tags={"team": "nlp"}, **FAST) as run:
        for step in range(5):
            run.progress(step, total_steps=10, loss=1.0 / (step + 1), learning_rate=3e-4)
        running = wait_for(
            lambda: (m := files.json("metadata.json")) and m["status"] == "running" and m, what="running heartbeat"
        )
        assert wait_for(lambda: (g := files.json("progress.json")) and g["step"] == 4 and g)["total_steps"] == 10
        assert files.text("_complete") is None
    assert running["run_id"] == run_id
    assert running["phase"] == "training"
    assert running["job_name"] == "demo" and running["tags"] == {"team": "nlp"}
    assert running["attempt"] == 1
    assert running["last_update"].endswith("Z") and running["started_at"].endswith("Z")
    assert "instance_id" not in running  # unknown off EC2: left out rather than null

    final = files.json("metadata.json")
    assert final["status"] == "completed" and "finished_at" in final
    progress = files.json("progress.json")
    assert progress["step"] == 4 and progress["loss"] == pytest.approx(0.2) and progress["learning_rate"] == 3e-4
    complete = files.json("_complete")
    assert complete["status"] == "completed" and complete["step"] == 4 and complete["total_steps"] == 10
    # v1.1: a single-node run writes its node file too.
    assert files.keys() == ["_complete", "metadata.json", "nodes/0.json", "progress.json"]


def test_writes_error_with_the_traceback_and_reraises_on_an_exception(bucket: str, run_id: str, files: RunFiles):
    def train(run: trainwatch.Run) -> None:
        run.progress(7, total_steps=100, loss=2.5)
        raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity)")

    with pytest.raises(RuntimeError, match="CUDA out of memory"):
        with trainwatch.watch(run_id, bucket, **FAST) as run:
            train(run)

    error = files.text("_error")
    assert error.startswith("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert "Traceback (most recent call last)" in error and "in train" in error
    assert "step 7 of 100" in error
    assert files.json("metadata.json")["status"] == "failed"
    assert files.json("progress.json")["step"] == 7
    assert files.text("_complete") is None


@pytest.mark.parametrize(("code", "status"), [(0, "completed"), (None, "completed"), (3, "failed")])
def test_sys_exit_counts_as_success_only_with_a_zero_code(bucket: str, run_id: str, files: RunFiles, code, status):
    with pytest.raises(SystemExit):
        with trainwatch.watch(run_id, bucket, **FAST):
            raise SystemExit(code)
    assert files.json("metadata.json")["status"] == status
    assert (files.text("_error") is not None) == (status == "failed")


def test_throttles_progress_writes_and_still_writes_the_latest_step(moto_endpoint: str, bucket: str, run_id: str,
                                                                  files: RunFiles):
    counts: dict[str, int] = {}
    client = counting_client(moto_endpoint, counts)
    with trainwatch.watch(run_id, bucket, interval=60, progress_interval=0.2, s3_client=client) as run:
        started = time.monotonic()
        step = 0
        while time.monotonic() - started < 0.5:
            run.progress(step, total_steps=10**9, loss=0.5)
            step += 1
        last = step - 1
        # The trailing write lands within one throttle interval, without another progress() call.
        wait_for(lambda: (g := files.json("progress.json")) and g["step"] == last, timeout=3, what="trailing write")
    assert step > 1000
    assert 2 <= counts["progress.json"] <= 6, counts
    assert files.json("progress.json")["step"] == last


def test_a_new_attempt_clears_the_last_attempts_end_and_counts_up(bucket: str, run_id: str, files: RunFiles):
    with pytest.raises(ValueError):
        with trainwatch.watch(run_id, bucket, **FAST):
            raise ValueError("first attempt dies")
    assert files.text("_error") is not None

    with trainwatch.watch(run_id, bucket, **FAST) as run:
        run.progress(1)
        second = wait_for(lambda: (m := files.json("metadata.json")) and m["status"] == "running" and m)
        assert files.text("_error") is None
    assert second["attempt"] == 2
    assert files.json("_complete")["attempt"] == 2
    assert files.text("_error") is None


def test_takes_the_attempt_and_instance_id_from_the_environment(bucket: str, run_id: str, files: RunFiles,
                                                                 monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TRAINWATCH_ATTEMPT", "4")
    monkeypatch.setenv("TRAINWATCH_INSTANCE_ID", "i-0123456789abcdef0")
    monkeypatch.setenv("TRAINWATCH_RUN_ID", run_id)
    monkeypatch.setenv("TRAINWATCH_BUCKET", bucket)
    with trainwatch.watch(**FAST):
        pass
    metadata = files.json("metadata.json")
    assert metadata["attempt"] == 4 and metadata["instance_id"] == "i-0123456789abcdef0"


def test_honours_trainwatch_prefix(s3: Any, bucket: str, run_id: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TRAINWATCH_PREFIX", "team-a/runs/")
    with trainwatch.watch(run_id, bucket, **FAST):
        pass
    assert RunFiles(s3, bucket, run_id, prefix="team-a/runs").json("metadata.json")["status"] == "completed"


@pytest.mark.parametrize("rank_var", ["RANK", "LOCAL_RANK"])
def test_writes_nothing_from_other_ranks(bucket: str, run_id: str, files: RunFiles, monkeypatch, rank_var: str):
    monkeypatch.setenv(rank_var, "1")
    threads = threading.active_count()
    with trainwatch.watch(run_id, bucket, **FAST) as run:
        assert not run.enabled
        assert threading.active_count() == threads
        run.progress(1, loss=0.1)
        with run.phase("checkpointing"):
            pass
    time.sleep(0.2)
    assert files.keys() == []


@pytest.mark.parametrize("bad", ["", "../escape", "a/b", ".hidden", "x" * 129, "run..1", "spaces are bad"])
def test_rejects_an_invalid_run_id_with_a_clear_value_error(bucket: str, bad: str):
    with pytest.raises(ValueError, match="run id"):
        trainwatch.watch(bad, bucket)


def test_requires_a_bucket(run_id: str):
    with pytest.raises(ValueError, match="TRAINWATCH_BUCKET"):
        trainwatch.watch(run_id)


@pytest.mark.parametrize(
    "metadata", [{"stale_minutes": 0}, {"stale_minutes": "10"}, {"attempt": 0}, {"tags": ["x"]}, {"job_name": 3}]
)
def test_rejects_metadata_the_watchdog_would_not_accept(bucket: str, run_id: str, metadata: dict[str, Any]):
    with pytest.raises(ValueError):
        trainwatch.watch(run_id, bucket, **metadata)


def test_disabled_by_environment_needs_no_configuration(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TRAINWATCH_DISABLED", "1")
    with trainwatch.watch() as run:
        run.progress(1)
    assert not run.enabled


def test_phase_is_written_at_once_and_restored_after_the_block(bucket: str, run_id: str, files: RunFiles):
    with trainwatch.watch(run_id, bucket, interval=60, flush_timeout=5) as run:
        wait_for(lambda: (m := files.json("metadata.json")) and m["phase"] == "setup", what="setup phase")
        run.progress(1)
        with run.phase("checkpointing"):
            wait_for(lambda: files.json("metadata.json")["phase"] == "checkpointing", what="checkpointing phase")
        wait_for(lambda: files.json("metadata.json")["phase"] == "training", what="training phase again")
        run.phase("evaluation")  # also a plain setter
        wait_for(lambda: files.json("metadata.json")["phase"] == "evaluation", what="evaluation phase")


def test_writes_strict_json_when_the_loss_is_nan(bucket: str, run_id: str, files: RunFiles):
    with trainwatch.watch(run_id, bucket, **FAST) as run:
        run.progress(3, loss=float("nan"), grad_norm=float("inf"), eval={"acc": 0.5})
    raw = files.text("progress.json")
    assert "NaN" not in raw and "Infinity" not in raw
    progress = json.loads(raw)
    assert progress["loss"] is None and progress["grad_norm"] is None
    assert progress["non_finite"] == ["loss", "grad_norm"]
    assert progress["eval"] == {"acc": 0.5}


def test_never_raises_from_progress_on_bad_input(bucket: str, run_id: str, files: RunFiles):
    with trainwatch.watch(run_id, bucket, **FAST) as run:
        run.progress("not a number")  # type: ignore[arg-type]
        run.progress(-1)
        run.progress(2, odd=object())
    progress = files.json("progress.json")
    assert progress["step"] == 2 and progress["odd"].startswith("<object object")


def test_uploads_the_log_tail(bucket: str, run_id: str, files: RunFiles, tmp_path):
    log_file = tmp_path / "train.log"
    log_file.write_text("".join(f"line {i}\n" for i in range(20_000)))
    with trainwatch.watch(run_id, bucket, log_file=str(log_file), **FAST):
        wait_for(lambda: files.text("logs/training_log_latest.txt"), what="log tail")
        with log_file.open("a") as f:
            f.write("the very last line\n")
    tail = files.text("logs/training_log_latest.txt")
    assert tail.endswith("line 19999\nthe very last line\n")
    assert len(tail.encode()) <= 64 * 1024 and tail.startswith("line ")  # cut at a line start
    assert files.json("metadata.json")["log_path"] == str(log_file)


def test_summary_fields_go_into_complete(bucket: str, run_id: str, files: RunFiles):
    with trainwatch.watch(run_id, bucket, **FAST) as run:
        run.progress(10, total_steps=10, loss=0.1)
        run.summary["eval_accuracy"] = 0.91
    complete = files.json("_complete")
    assert complete["eval_accuracy"] == 0.91 and complete["loss"] == 0.1 and complete["duration_s"] >= 0
