"""PyTorch Lightning callback: `Trainer(callbacks=[TrainwatchCallback(run_id="...")])`."""

from __future__ import annotations

import math
from typing import Any, Optional

try:  # only when this module is imported
    from lightning.pytorch.callbacks import Callback
except ImportError:  # the older package name
    from pytorch_lightning.callbacks import Callback  # type: ignore[no-redef]

import trainwatch


class TrainwatchCallback(Callback):
    """Watches `trainer.fit()`: progress each batch (throttled), `_error` on an exception, `_complete` at the end.

    Takes `trainwatch.watch()`'s arguments. Only global rank zero writes the run's files; each
    node's local rank zero writes that node's `nodes/{node_rank}.json`. Validation runs in phase
    `validation`, so a long one reads as such in alerts.
    """

    def __init__(self, run_id: Optional[str] = None, bucket: Optional[str] = None, **watch_kwargs: Any) -> None:
        super().__init__()
        self._watch_kwargs = {"run_id": run_id, "bucket": bucket, **watch_kwargs}
        self.run: Optional[trainwatch.Run] = None
        self._total: Optional[int] = None
        self._metrics: dict[str, float] = {}
        self._phase: Any = None

    def on_fit_start(self, trainer: Any, pl_module: Any) -> None:
        if self.run is not None:
            return
        options = dict(self._watch_kwargs)
        options.setdefault("checkpoint_dir", getattr(trainer, "default_root_dir", None))
        if not getattr(trainer, "is_global_zero", True):
            options["enabled"] = False
            # Another node's local rank 0 still writes that node's nodes/{node_rank}.json.
            options.setdefault("node_files", getattr(trainer, "local_rank", None) == 0)
        self.run = trainwatch.watch(**options).start()

    def on_train_start(self, trainer: Any, pl_module: Any) -> None:
        total = getattr(trainer, "estimated_stepping_batches", None)
        self._total = int(total) if isinstance(total, (int, float)) and math.isfinite(total) else None

    def on_train_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int) -> None:
        run = self.run
        if run is None:
            return
        if run.wants_progress():  # reading metrics syncs the GPU: only when they will be written
            self._metrics = _scalars(getattr(trainer, "callback_metrics", {}))
        run.progress(trainer.global_step, self._total, **self._metrics)

    def on_validation_start(self, trainer: Any, pl_module: Any) -> None:
        if self.run is not None and not getattr(trainer, "sanity_checking", False):
            self._phase = self.run.phase("validation")

    def on_validation_end(self, trainer: Any, pl_module: Any) -> None:
        if self._phase is not None:
            self._phase.__exit__(None, None, None)
            self._phase = None

    def on_exception(self, trainer: Any, pl_module: Any, exception: BaseException) -> None:
        if self.run is not None:
            self.run.finish(exception)

    def on_fit_end(self, trainer: Any, pl_module: Any) -> None:
        if self.run is not None:
            self.run.finish()


def _scalars(metrics: Any) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, value in dict(metrics).items():
        try:
            if getattr(value, "numel", lambda: 1)() == 1:
                out[str(name)] = float(value)
        except (TypeError, ValueError, RuntimeError):
            pass
    return out
