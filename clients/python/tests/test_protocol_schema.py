"""The files the client writes are accepted by the watchdog's own parsers (lambdas/core/protocol, zod)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import trainwatch
from _support import RunFiles

REPO = Path(__file__).resolve().parents[3]
FAST = {"interval": 0.05, "flush_timeout": 5.0}

# Parses each file with the watchdog's parser and prints [{file, ok, problem}].
CHECK = """
const { parseMetadata, parseProgress, parseComplete } = await import('./lambdas/core/protocol/index.ts');
const { readFileSync } = await import('node:fs');
const files = JSON.parse(process.argv[1]);
const out = files.map(([kind, path]) => {
  const bytes = readFileSync(path);
  if (kind === 'complete') return { path, ok: parseComplete(bytes) !== undefined };
  const r = (kind === 'metadata' ? parseMetadata : parseProgress)(bytes);
  return { path, ok: r.ok, problem: r.ok ? undefined : r.problem };
});
console.log(JSON.stringify(out));
"""


def test_the_watchdogs_parsers_accept_every_file_the_client_writes(bucket: str, run_id: str, files: RunFiles,
                                                                   tmp_path: Path):
    written: list[tuple[str, Path]] = []

    def keep(kind: str, name: str, label: str) -> None:
        path = tmp_path / f"{label}-{name}"
        path.write_text(files.text(name))
        written.append((kind, path))

    # v1.4: `platform`, as a pod on EKS writes it (given here; test_platform.py covers how it is found).
    where = {"cluster": "ml-prod", "namespace": "team-nlp", "pod": "sweep-x7k2p-gpu-worker-4xq9z",
             "node": "ip-10-0-1-23.us-west-2.compute.internal", "job": {"kind": "RayJob", "name": "sweep"}}
    with trainwatch.watch(run_id, bucket, job_name="j", stale_minutes=45, tags={"a": 1}, profile="basic",
                          platform=where, **FAST) as run:
        run.progress(0, total_steps=10, loss=float("nan"), learning_rate=1e-3, eval={"acc": 0.5})
        with run.phase("checkpointing"):
            run.heartbeat()
    assert files.json("metadata.json")["platform"] == {"kind": "eks", **where}
    keep("metadata", "metadata.json", "completed")
    keep("progress", "progress.json", "completed")
    keep("complete", "_complete", "completed")
    with pytest.raises(KeyError):
        with trainwatch.watch(run_id, bucket, **FAST):
            raise KeyError("boom")  # before any progress: metadata only
    keep("metadata", "metadata.json", "failed")

    result = subprocess.run(
        ["node", "--import", "tsx/esm", "--input-type=module", "-e", CHECK,
         json.dumps([(k, str(p)) for k, p in written])],
        cwd=REPO, capture_output=True, text=True, timeout=60, check=True,
    )
    verdicts = json.loads(result.stdout)
    assert len(verdicts) == 4
    assert all(v["ok"] for v in verdicts), verdicts
