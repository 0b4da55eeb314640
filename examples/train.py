#!/usr/bin/env python3
"""A pretend training loop, watched by trainwatch. Needs only Python and boto3 (no torch, no GPU).

    export TRAINWATCH_BUCKET=trainwatch-local     # what `npm start` (the local mode) created
    export AWS_ENDPOINT_URL=http://127.0.0.1:5000 # the local emulator; leave unset on AWS
    python3 examples/train.py --run-id demo-1 --steps 300

Flags make it go wrong the ways real runs do: `--fail oom|nan|exception --fail-at STEP` ends it with a
CUDA-OOM-like error, a diverged loss, or a plain bug; `--hang-at STEP` stops making progress while
the process stays alive (a hung NCCL collective), so only the stall detection can catch it.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import random
import sys
import time
from datetime import datetime, timezone

try:
    import trainwatch
except ImportError:  # run from a checkout without `pip install clients/python`
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python", "src"))
    import trainwatch


class OutOfMemoryError(RuntimeError):
    """What torch raises (as torch.OutOfMemoryError) when an allocation does not fit on the GPU."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    default_id = os.environ.get("TRAINWATCH_RUN_ID") or datetime.now(timezone.utc).strftime("example-%Y%m%d-%H%M%S")
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run-id", default=default_id)
    parser.add_argument("--bucket", default=None, help="default: TRAINWATCH_BUCKET")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--step-time", type=float, default=0.05, help="seconds per simulated step")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between heartbeats")
    parser.add_argument("--checkpoint-every", type=int, default=0, help="steps between simulated checkpoints")
    parser.add_argument("--fail", choices=["oom", "nan", "exception"], help="how to fail at --fail-at")
    parser.add_argument("--fail-at", type=int, default=50)
    parser.add_argument("--hang-at", type=int, help="stop making progress at this step, but stay alive")
    parser.add_argument("--log-file", help="also write the log here; its tail is uploaded with the heartbeats")
    return parser.parse_args(argv)


def simulated_step(step: int, args: argparse.Namespace, rng: random.Random) -> tuple[float, float]:
    """One step's loss and learning rate (cosine schedule), or the failure asked for."""
    if args.fail and step == args.fail_at:
        if args.fail == "oom":
            raise OutOfMemoryError(
                "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of "
                "which 1.05 GiB is free. Including non-PyTorch memory, this process has 78.09 GiB memory in use."
            )
        if args.fail == "exception":
            raise KeyError("input_ids")
    lr = 3e-4 * 0.5 * (1 + math.cos(math.pi * step / max(1, args.steps)))
    loss = 2.5 * math.exp(-step / max(1.0, args.steps / 4)) + 0.3 + rng.gauss(0, 0.02)
    if args.fail == "nan" and step >= args.fail_at:
        loss = float("nan")
        if step >= args.fail_at + 3:
            raise FloatingPointError(f"loss diverged: nan for 3 steps (step {step})")
    time.sleep(args.step_time)
    return loss, lr


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stdout)]
    if args.log_file:
        handlers.append(logging.FileHandler(args.log_file))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", handlers=handlers)
    log = logging.getLogger("train")
    rng = random.Random(0)

    # The three lines: watch the run, report progress, and the rest happens on its own.
    with trainwatch.watch(
        args.run_id, args.bucket, interval=args.interval, log_file=args.log_file, job_name="example-train"
    ) as run:
        log.info("run %s: %d steps", args.run_id, args.steps)
        for step in range(args.steps):
            if args.hang_at is not None and step == args.hang_at:
                log.info("step %d: waiting on a collective that never completes", step)
                while True:  # heartbeats go on (the process is alive); progress does not
                    time.sleep(3600)
            loss, lr = simulated_step(step, args, rng)
            run.progress(step + 1, total_steps=args.steps, loss=loss, learning_rate=lr)
            if (step + 1) % max(1, args.steps // 10) == 0:
                log.info("step %d/%d loss %.4f lr %.2e", step + 1, args.steps, loss, lr)
            if args.checkpoint_every and (step + 1) % args.checkpoint_every == 0:
                with run.phase("checkpointing"):
                    log.info("step %d: saving a checkpoint", step + 1)
                    time.sleep(args.step_time * 5)
        run.summary["final_loss"] = loss
    log.info("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
