"""Hugging Face `Trainer` callback: `Trainer(..., callbacks=[TrainwatchCallback(run_id="...")])`."""

from __future__ import annotations

from typing import Any, Optional

from transformers import TrainerCallback  # only when this module is imported

import trainwatch


class TrainwatchCallback(TrainerCallback):
    """Watches a `Trainer` run: progress each step (throttled), the logged metrics, `_complete` at the end.

    Takes `trainwatch.watch()`'s arguments. Only the world's main process writes the run's files;
    each node's local main process writes that node's `nodes/{node_rank}.json`. An exception that
    escapes `trainer.train()` is recorded as `_error` when the program ends (Trainer has no hook for it);
    wrap the call in `with trainwatch.watch(...)` instead where you need it at once.
    """

    def __init__(self, run_id: Optional[str] = None, bucket: Optional[str] = None, **watch_kwargs: Any) -> None:
        self._watch_kwargs = {"run_id": run_id, "bucket": bucket, **watch_kwargs}
        self.run: Optional[trainwatch.Run] = None
        self._metrics: dict[str, float] = {}

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.run is not None:
            return
        options = dict(self._watch_kwargs)
        options.setdefault("job_name", getattr(args, "run_name", None))
        options.setdefault("checkpoint_dir", getattr(args, "output_dir", None))
        if not getattr(state, "is_world_process_zero", True):
            options["enabled"] = False
            # Another node's first process still writes that node's nodes/{node_rank}.json.
            options.setdefault("node_files", bool(getattr(state, "is_local_process_zero", False)))
        self.run = trainwatch.watch(**options).start()

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.run is not None:
            self.run.progress(state.global_step, state.max_steps or None, **self._metrics)

    def on_log(self, args: Any, state: Any, control: Any, logs: Optional[dict[str, Any]] = None, **kwargs: Any) -> None:
        if self.run is None or not logs:
            return
        self._metrics.update((k, v) for k, v in logs.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
        self.run.progress(state.global_step, state.max_steps or None, **self._metrics)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.run is not None:
            self.run.finish()
