"""Without a `with` block (e.g. the callbacks), the end of the program still writes the final record."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from _support import RunFiles

SRC = Path(__file__).parents[1] / "src"


def run_script(body: str, run_id: str, bucket: str) -> subprocess.CompletedProcess[str]:
    code = f"import trainwatch\nrun = trainwatch.watch({run_id!r}, {bucket!r}, interval=0.05).start()\n{body}\n"
    return subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(SRC)}, capture_output=True, text=True,
        timeout=30,
    )


def test_an_uncaught_exception_ending_the_program_is_recorded_as_failed(bucket: str, run_id: str, files: RunFiles):
    result = run_script("run.progress(5)\nraise MemoryError('host ran out of RAM')", run_id, bucket)
    assert result.returncode == 1 and "MemoryError" in result.stderr
    assert files.text("_error").startswith("MemoryError: host ran out of RAM")
    assert files.json("metadata.json")["status"] == "failed"


def test_a_program_that_ends_normally_without_finish_is_completed(bucket: str, run_id: str, files: RunFiles):
    result = run_script("run.progress(5)", run_id, bucket)
    assert result.returncode == 0, result.stderr
    assert files.json("_complete")["step"] == 5
    assert files.json("metadata.json")["status"] == "completed"
