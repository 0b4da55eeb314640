"""Helpers the tests share (fixtures live in conftest.py)."""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Optional


class RunFiles:
    """Reads one run's files from the emulator."""

    def __init__(self, s3: Any, bucket: str, run_id: str, prefix: str = "training-runs") -> None:
        self.s3, self.bucket, self.base = s3, bucket, f"{prefix}/{run_id}/"

    def keys(self) -> list[str]:
        pages = self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.base)
        return sorted(o["Key"][len(self.base):] for page in pages for o in page.get("Contents", []))

    def text(self, name: str) -> Optional[str]:
        try:
            return self.s3.get_object(Bucket=self.bucket, Key=self.base + name)["Body"].read().decode()
        except self.s3.exceptions.NoSuchKey:
            return None

    def json(self, name: str) -> Optional[dict[str, Any]]:
        raw = self.text(name)
        return None if raw is None else json.loads(raw)


def wait_for(check: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    """Polls `check` until it returns something truthy; fails the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.02)
