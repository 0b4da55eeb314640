#!/usr/bin/env python3
"""How much a `run.progress()` call costs the training loop, in microseconds.

Starts the local emulator (moto server, its own process, as in the local mode), watches a run, and
times each of many `progress(step, total_steps, loss=..., learning_rate=...)` calls while the writer
thread sends the throttled writes to the emulator. Prints the median, p99 and max per call.

    python3 bench/client_overhead.py [--calls 200000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "clients" / "python" / "src"))

import boto3  # noqa: E402
from botocore.config import Config  # noqa: E402

import trainwatch  # noqa: E402


def start_emulator() -> tuple[subprocess.Popen[str], str]:
    child = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts" / "moto_server.py"), "0"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert child.stdout is not None
    for line in child.stdout:
        if line.startswith("READY "):
            return child, f"http://127.0.0.1:{line.split()[1]}"
    raise RuntimeError("moto server did not start")


def measure(calls: int, endpoint: str, bucket: str, progress_interval: float) -> dict[str, float]:
    puts = {"progress.json": 0}
    client = boto3.client("s3", endpoint_url=endpoint, config=Config(s3={"addressing_style": "path"}))

    def count(params: dict, **_: object) -> None:
        if params["Key"].endswith("progress.json"):
            puts["progress.json"] += 1

    client.meta.events.register("before-parameter-build.s3.PutObject", count)
    samples = [0] * calls
    clock = time.perf_counter_ns
    with trainwatch.watch(
        f"bench-{progress_interval}", bucket, interval=1.0, progress_interval=progress_interval, s3_client=client,
        handle_sigterm=False,
    ) as run:
        time.sleep(0.5)  # let the start-up writes finish, as they would during model loading
        started = time.perf_counter()
        for step in range(calls):
            t0 = clock()
            run.progress(step, total_steps=calls, loss=2.0 / (step + 1), learning_rate=3e-4)
            samples[step] = clock() - t0
        elapsed = time.perf_counter() - started
    baseline = []
    noop = lambda step, total_steps=None, **m: None  # noqa: E731
    for step in range(calls):
        t0 = clock()
        noop(step, total_steps=calls, loss=2.0 / (step + 1), learning_rate=3e-4)
        baseline.append(clock() - t0)
    samples.sort()
    return {
        "progress_interval_s": progress_interval,
        "calls": calls,
        "median_us": statistics.median(samples) / 1000,
        "p99_us": samples[int(calls * 0.99)] / 1000,
        "max_us": samples[-1] / 1000,
        "mean_us": sum(samples) / calls / 1000,
        "empty_call_median_us": statistics.median(baseline) / 1000,
        "progress_writes": puts["progress.json"],
        "loop_seconds": elapsed,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.update(
        AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_REGION="us-east-1",
        AWS_EC2_METADATA_DISABLED="true",
    )
    child, endpoint = start_emulator()
    try:
        boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket="bench")
        # The default throttle (10 s) and an aggressive one (a write every 0.1 s, against the emulator).
        results = [measure(args.calls, endpoint, "bench", interval) for interval in (10.0, 0.1)]
    finally:
        assert child.stdin is not None
        child.stdin.close()  # the launcher exits when its stdin closes
        child.wait(timeout=10)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"run.progress() overhead, {args.calls} calls each (Python {sys.version.split()[0]}):")
    for r in results:
        print(
            f"  progress_interval={r['progress_interval_s']:>4}s: median {r['median_us']:.2f} us, "
            f"p99 {r['p99_us']:.2f} us, max {r['max_us']:.0f} us, mean {r['mean_us']:.2f} us; "
            f"{r['progress_writes']} progress.json writes in {r['loop_seconds']:.2f} s "
            f"(an empty call with the same arguments: {r['empty_call_median_us']:.2f} us)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
