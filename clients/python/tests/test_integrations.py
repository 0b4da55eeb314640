"""The Trainer/Lightning callbacks, driven the way those frameworks call them (with stand-in base classes),
and the promise that `import trainwatch` loads neither framework nor boto3."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any, Iterator

import pytest

from _support import RunFiles

SRC = Path(__file__).parents[1] / "src"
FAST = {"interval": 0.05, "flush_timeout": 5.0}


def test_importing_trainwatch_loads_no_framework_and_no_boto3():
    code = (
        "import sys, trainwatch, trainwatch.integrations\n"
        "loaded = {'boto3', 'transformers', 'lightning', 'pytorch_lightning', 'torch'} & set(sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONPATH": str(SRC)})


@pytest.fixture
def fake_framework(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Stand-ins for `transformers.TrainerCallback` and `lightning.pytorch.callbacks.Callback`."""
    transformers = types.ModuleType("transformers")
    transformers.TrainerCallback = type("TrainerCallback", (), {})  # type: ignore[attr-defined]
    callbacks = types.ModuleType("lightning.pytorch.callbacks")
    callbacks.Callback = type("Callback", (), {})  # type: ignore[attr-defined]
    for name, module in {
        "transformers": transformers,
        "lightning": types.ModuleType("lightning"),
        "lightning.pytorch": types.ModuleType("lightning.pytorch"),
        "lightning.pytorch.callbacks": callbacks,
    }.items():
        monkeypatch.setitem(sys.modules, name, module)
    for name in ("trainwatch.integrations.huggingface", "trainwatch.integrations.lightning"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    yield


def test_hugging_face_callback_reports_steps_logged_metrics_and_completion(fake_framework, bucket: str, run_id: str,
                                                                          files: RunFiles):
    hf = importlib.import_module("trainwatch.integrations.huggingface")
    callback = hf.TrainwatchCallback(run_id=run_id, bucket=bucket, **FAST)
    args = types.SimpleNamespace(run_name="sft-demo", output_dir="/checkpoints/sft-demo")
    state = types.SimpleNamespace(global_step=0, max_steps=20, is_world_process_zero=True)
    callback.on_train_begin(args, state, None)
    for step in range(1, 21):
        state.global_step = step
        callback.on_step_end(args, state, None)
        if step % 5 == 0:
            callback.on_log(args, state, None, logs={"loss": 1.0 / step, "learning_rate": 1e-4, "epoch": step / 20})
    callback.on_train_end(args, state, None)

    progress = files.json("progress.json")
    assert progress["step"] == 20 and progress["total_steps"] == 20
    assert progress["loss"] == pytest.approx(0.05) and progress["learning_rate"] == 1e-4
    metadata = files.json("metadata.json")
    assert metadata["status"] == "completed"
    assert metadata["job_name"] == "sft-demo" and metadata["checkpoint_dir"] == "/checkpoints/sft-demo"
    assert files.json("_complete")["step"] == 20


def test_hugging_face_callback_writes_nothing_off_the_main_process(fake_framework, bucket: str, run_id: str,
                                                                  files: RunFiles):
    hf = importlib.import_module("trainwatch.integrations.huggingface")
    callback = hf.TrainwatchCallback(run_id=run_id, bucket=bucket, **FAST)
    state = types.SimpleNamespace(global_step=1, max_steps=2, is_world_process_zero=False)
    callback.on_train_begin(types.SimpleNamespace(), state, None)
    callback.on_step_end(None, state, None)
    callback.on_train_end(None, state, None)
    assert not callback.run.enabled
    assert files.keys() == []


class _Scalar:
    """Quacks like a one-element tensor."""

    def __init__(self, value: float) -> None:
        self.value = value

    def numel(self) -> int:
        return 1

    def __float__(self) -> float:
        return self.value


def _trainer(**extra: Any) -> Any:
    return types.SimpleNamespace(
        is_global_zero=True, default_root_dir="/ckpt", estimated_stepping_batches=float("inf"), global_step=0,
        callback_metrics={}, sanity_checking=False, **extra,
    )


def test_lightning_callback_reports_progress_validation_phase_and_completion(fake_framework, bucket: str, run_id: str,
                                                                            files: RunFiles):
    pl = importlib.import_module("trainwatch.integrations.lightning")
    callback = pl.TrainwatchCallback(run_id=run_id, bucket=bucket, **FAST)
    trainer = _trainer()
    trainer.estimated_stepping_batches = 8
    callback.on_fit_start(trainer, None)
    callback.on_train_start(trainer, None)
    for step in range(1, 9):
        trainer.global_step = step
        trainer.callback_metrics = {"train_loss": _Scalar(1.0 / step), "confusion": types.SimpleNamespace()}
        callback.on_train_batch_end(trainer, None, None, None, step - 1)
    callback.on_validation_start(trainer, None)
    assert callback.run.current_phase == "validation"
    callback.on_validation_end(trainer, None)
    assert callback.run.current_phase == "training"
    callback.on_fit_end(trainer, None)

    progress = files.json("progress.json")
    assert progress["step"] == 8 and progress["total_steps"] == 8 and "train_loss" in progress
    assert "confusion" not in progress
    assert files.json("metadata.json")["status"] == "completed"
    assert files.json("_complete")["step"] == 8


def test_lightning_callback_records_an_exception_as_failed(fake_framework, bucket: str, run_id: str, files: RunFiles):
    pl = importlib.import_module("trainwatch.integrations.lightning")
    callback = pl.TrainwatchCallback(run_id=run_id, bucket=bucket, **FAST)
    trainer = _trainer()
    callback.on_fit_start(trainer, None)
    callback.on_train_start(trainer, None)
    try:
        raise RuntimeError("NCCL error: unhandled system error")
    except RuntimeError as error:
        callback.on_exception(trainer, None, error)
    assert files.text("_error").startswith("RuntimeError: NCCL error: unhandled system error")
    assert files.json("metadata.json")["status"] == "failed"


TORCHRUN_NODE_1 = {"RANK": "8", "LOCAL_RANK": "0", "GROUP_RANK": "1", "LOCAL_WORLD_SIZE": "8", "WORLD_SIZE": "16"}


def test_hugging_face_callback_on_another_nodes_main_process_writes_only_its_node_file(
    fake_framework, bucket: str, run_id: str, files: RunFiles, monkeypatch: pytest.MonkeyPatch
):
    for name, value in TORCHRUN_NODE_1.items():
        monkeypatch.setenv(name, value)
    hf = importlib.import_module("trainwatch.integrations.huggingface")
    callback = hf.TrainwatchCallback(run_id=run_id, bucket=bucket, **FAST)
    state = types.SimpleNamespace(global_step=0, max_steps=20, is_world_process_zero=False, is_local_process_zero=True)
    callback.on_train_begin(types.SimpleNamespace(), state, None)
    for step in range(1, 4):
        state.global_step = step
        callback.on_step_end(None, state, None)
    callback.on_train_end(None, state, None)
    assert not callback.run.enabled and callback.run.node_rank == 1
    assert files.keys() == ["nodes/1.json"]
    assert files.json("nodes/1.json")["step"] == 3


def test_lightning_callback_on_another_nodes_local_rank_0_writes_only_its_node_file(
    fake_framework, bucket: str, run_id: str, files: RunFiles, monkeypatch: pytest.MonkeyPatch
):
    for name, value in TORCHRUN_NODE_1.items():
        monkeypatch.setenv(name, value)
    pl = importlib.import_module("trainwatch.integrations.lightning")
    callback = pl.TrainwatchCallback(run_id=run_id, bucket=bucket, **FAST)
    trainer = _trainer(local_rank=0)
    trainer.is_global_zero = False
    callback.on_fit_start(trainer, None)
    callback.on_train_start(trainer, None)
    trainer.global_step = 5
    assert not callback.run.wants_progress()  # metrics are rank 0's: never read (and GPU-synced) here
    callback.on_train_batch_end(trainer, None, None, None, 4)
    callback.on_validation_start(trainer, None)
    callback.on_validation_end(trainer, None)
    callback.on_fit_end(trainer, None)
    assert files.keys() == ["nodes/1.json"]
    assert files.json("nodes/1.json")["node_rank"] == 1
