"""trainwatch: heartbeats from a training script to S3, for the trainwatch watchdog.

    import trainwatch

    with trainwatch.watch(run_id="llama-7b-sft", bucket="my-trainwatch-bucket") as run:
        for step in range(total):
            ...
            run.progress(step, total_steps=total, loss=loss)

See "Add trainwatch to your training script" in the trainwatch README.
"""

from __future__ import annotations

import os
from typing import Any, Optional

from . import _protocol as _p
from ._environment import env_flag, rank
from ._nodes import topology
from ._platform import platform as _find_platform
from .run import Run, __version__

__all__ = ["Run", "watch", "__version__"]


def watch(
    run_id: Optional[str] = None,
    bucket: Optional[str] = None,
    prefix: str = _p.DEFAULT_PREFIX,
    interval: float = 60,
    *,
    progress_interval: Optional[float] = None,
    log_file: Optional[str] = None,
    enabled: Optional[bool] = None,
    flush_timeout: float = 10.0,
    handle_sigterm: bool = True,
    s3_client: Any = None,
    node_files: Optional[bool] = None,
    stack_after: Any = None,
    stacks: Optional[bool] = None,
    platform: Any = None,
    **metadata: Any,
) -> Run:
    """Watches a training run; use as a context manager (`with trainwatch.watch(...) as run:`).

    Args:
        run_id: the run's id (one S3 path segment); default `TRAINWATCH_RUN_ID`.
        bucket: the trainwatch bucket; default `TRAINWATCH_BUCKET`.
        prefix: key prefix of all runs; `TRAINWATCH_PREFIX` replaces the default when set.
        interval: seconds between `metadata.json` heartbeats (and node files, which say it: `every_s`).
        progress_interval: least seconds between `progress.json` writes (default: `min(10, interval)`).
        log_file: a log file whose tail is uploaded to `logs/training_log_latest.txt` each interval.
        enabled: write the run's files or not; default: only on rank 0 (`RANK`, else `SLURM_PROCID`, else
            `LOCAL_RANK`), and never when `TRAINWATCH_DISABLED=1`.
        node_files: write `nodes/{node_rank}.json` (protocol v1.1) from every node's local rank 0, every
            `interval`, with GPU telemetry; default on unless `enabled=False`, never with
            `TRAINWATCH_NODE_FILES=0`. Node rank and count come from the launcher's environment (torchrun,
            SLURM, Ray, EKS: see `_nodes.py` and docs/PROTOCOL.md).
        stack_after: seconds (or a duration: `90s`, `2m`) without a `progress()` call after which the node file's
            writer writes every thread's Python stack to `stacks/{node_rank}.json` (protocol v1.2), rewrites it
            every 5 minutes while stuck and deletes it at the next call; default `TRAINWATCH_STACK_AFTER`, else
            60 s, and never less than 3 times the node's p99 time between calls (v1.3: the node file's
            `call_gap_p99_s`; before 10 calls past the 5th, its median so far), a floor that reaches 5 minutes at
            most. The node file says the one in
            force (`stack_after_s`), and the stacks file whether the stuck thread still moves (`moving`).
        stacks: write those stacks files; default on wherever the node file is written, never with
            `TRAINWATCH_STACKS=0`.
        platform: where the run lives on Kubernetes (protocol v1.4): `metadata.json`'s `platform` object and the
            node file's `pod`, `node`, `namespace`. Default None: found once, here, in a pod (`KUBERNETES_SERVICE_HOST`
            set) from `POD_NAME`/`HOSTNAME`, `POD_NAMESPACE` (or `TRAINWATCH_K8S_NAMESPACE`, else the service
            account's namespace file), `NODE_NAME`, the downward-API labels file (`TRAINWATCH_PODINFO_LABELS`, default
            /etc/podinfo/labels: a PyTorchJob's or a RayJob's name), `TRAINWATCH_JOB_KIND`/`TRAINWATCH_JOB_NAME` and
            `TRAINWATCH_EKS_CLUSTER`. A dict (`{"cluster": ..., "namespace": ..., "pod": ..., "node": ...,
            "job": {"kind": "PyTorchJob" | "RayJob", "name": ...}}`) wins over what is found, key by key; False: none.
            An invalid value is left out with a warning, never raised.
        flush_timeout: how long the end of the run may wait for its last writes when S3 is down.
        handle_sigterm: record SIGTERM as preempted (then the previous handler or the default runs).
        s3_client: a boto3 S3 client to use instead of one built from the environment
            (`AWS_ENDPOINT_URL` is honoured).
        **metadata: extra `metadata.json` fields: `job_name`, `phase`, `attempt` (default
            `TRAINWATCH_ATTEMPT`, else one more than the last attempt's), `instance_id` (default
            `TRAINWATCH_INSTANCE_ID`, else IMDSv2), `checkpoint_dir`, `profile`, `stale_minutes`, `tags`,
            `nodes` (default: the node count the launcher's environment says), ...

    Raises:
        ValueError: a missing or invalid run id or bucket, a metadata field the watchdog would reject, or a
            `stack_after` / `TRAINWATCH_STACK_AFTER` that is not a positive duration.
    """
    env = dict(os.environ)
    if env_flag(env, "TRAINWATCH_DISABLED"):
        return Run(run_id or "disabled", bucket or "", prefix, 1.0, 1.0, {}, enabled=False, env=env, stacks=False)
    run_id = _p.check_run_id(run_id if run_id is not None else env.get("TRAINWATCH_RUN_ID", "").strip())
    bucket = bucket if bucket is not None else env.get("TRAINWATCH_BUCKET", "").strip()
    if not bucket:
        raise ValueError("trainwatch: a bucket is required: pass bucket=... or set TRAINWATCH_BUCKET")
    if prefix == _p.DEFAULT_PREFIX and env.get("TRAINWATCH_PREFIX") is not None:
        prefix = env["TRAINWATCH_PREFIX"]
    prefix = _p.check_prefix(prefix)
    if not interval > 0:
        raise ValueError(f"trainwatch: interval must be > 0 seconds, not {interval!r}")
    if progress_interval is None:
        progress_interval = min(10.0, float(interval))
    if progress_interval < 0:
        raise ValueError(f"trainwatch: progress_interval must be >= 0 seconds, not {progress_interval!r}")
    metadata.setdefault("attempt", _int_env(env, "TRAINWATCH_ATTEMPT"))
    metadata.setdefault("instance_id", env.get("TRAINWATCH_INSTANCE_ID", "").strip() or None)
    place = topology(env)
    metadata.setdefault("nodes", place.nodes)
    metadata = {k: v for k, v in metadata.items() if v is not None}
    _p.check_metadata(metadata)
    if node_files is None:
        node_files = enabled is not False
    node_rank = place.node_rank if node_files and env_flag(env, "TRAINWATCH_NODE_FILES") is not False else None
    if enabled is None:
        enabled = rank(env) == 0
    # v1.4: once, here; only in a process that writes something (rank 0's metadata, a node file).
    where = _find_platform(env, platform) if enabled or node_rank is not None else None
    return Run(
        run_id,
        bucket,
        prefix,
        float(interval),
        float(progress_interval),
        metadata,
        enabled=enabled,
        log_file=log_file,
        flush_timeout=flush_timeout,
        handle_sigterm=handle_sigterm,
        s3_client=s3_client,
        env=env,
        node_rank=node_rank,
        stack_after=stack_after,
        stacks=stacks,
        platform=where,
    )


def _int_env(env: dict[str, str], name: str) -> Optional[int]:
    raw = env.get(name, "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"trainwatch: {name}={raw!r} is not an integer") from None
