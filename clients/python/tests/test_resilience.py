"""S3 outages and slow networks never reach the training loop; IMDSv2 gives the instance id."""

from __future__ import annotations

import http.server
import logging
import socket
import threading
import time
from typing import Any, Iterator

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError, EndpointConnectionError

import trainwatch
from _support import RunFiles, wait_for


def flaky_client(endpoint: str, outage: threading.Event) -> Any:
    """An S3 client whose requests fail as if the network were down while `outage` is set."""
    client = boto3.client(
        "s3", endpoint_url=endpoint, config=Config(s3={"addressing_style": "path"}, retries={"total_max_attempts": 1})
    )

    def cut(request: Any, **_: Any) -> None:
        if outage.is_set():
            raise EndpointConnectionError(endpoint_url=request.url)

    client.meta.events.register("before-send.s3", cut)
    return client


def test_an_s3_outage_during_training_never_raises_and_writes_resume_after_it(
    moto_endpoint: str, bucket: str, run_id: str, files: RunFiles, caplog: pytest.LogCaptureFixture
):
    outage = threading.Event()
    outage.set()
    client = flaky_client(moto_endpoint, outage)
    slowest = 0.0
    with caplog.at_level(logging.WARNING, logger="trainwatch"):
        with trainwatch.watch(run_id, bucket, interval=0.05, s3_client=client, flush_timeout=5) as run:
            for step in range(300):
                started = time.perf_counter()
                run.progress(step, total_steps=300, loss=1.0)
                slowest = max(slowest, time.perf_counter() - started)
                time.sleep(0.002)
            assert files.keys() == []  # nothing got through
            outage.clear()
            wait_for(lambda: (g := files.json("progress.json")) and g["step"] == 299, what="writes after the outage")
    assert slowest < 0.05, f"progress() took {slowest * 1000:.1f} ms during the outage"
    assert files.json("_complete")["step"] == 299
    assert files.json("metadata.json")["status"] == "completed"
    warnings = [r.getMessage() for r in caplog.records if r.name == "trainwatch"]
    assert any("could not write" in w for w in warnings)
    assert any("work again" in w for w in warnings)
    # One warning per outage, not one per failed write.
    assert sum("could not write" in w for w in warnings) <= 2, warnings


def test_exits_promptly_when_s3_stays_down_at_the_end(
    run_id: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    with socket.socket() as s:  # a port nobody listens on: every connection is refused
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    monkeypatch.setenv("AWS_ENDPOINT_URL", dead)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="trainwatch"):
        with trainwatch.watch(run_id, "no-such-bucket", interval=0.05, flush_timeout=0.5) as run:
            for step in range(100):
                run.progress(step)
    assert time.monotonic() - started < 3
    assert any("gave up on" in r.getMessage() for r in caplog.records)


class _FakeImds(http.server.BaseHTTPRequestHandler):
    """IMDSv2: a token from PUT /latest/api/token is required to read the instance id."""

    def do_PUT(self) -> None:  # noqa: N802
        ok = self.path == "/latest/api/token" and self.headers.get("X-aws-ec2-metadata-token-ttl-seconds")
        self._reply(200 if ok else 400, b"token-123")

    def do_GET(self) -> None:  # noqa: N802
        ok = self.path == "/latest/meta-data/instance-id" and self.headers.get("X-aws-ec2-metadata-token") == "token-123"
        self._reply(200 if ok else 401, b"i-0fedcba9876543210")

    def _reply(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: Any) -> None:
        pass


@pytest.fixture
def fake_imds() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _FakeImds)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_reads_the_instance_id_from_imdsv2(bucket: str, run_id: str, files: RunFiles, fake_imds: str, monkeypatch):
    monkeypatch.delenv("AWS_EC2_METADATA_DISABLED")
    monkeypatch.setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", fake_imds)
    with trainwatch.watch(run_id, bucket, interval=0.05, flush_timeout=5):
        pass
    assert files.json("metadata.json")["instance_id"] == "i-0fedcba9876543210"


def test_configured_instance_id_wins_over_imds(bucket: str, run_id: str, files: RunFiles, fake_imds: str,
                                               monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("AWS_EC2_METADATA_DISABLED")
    monkeypatch.setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", fake_imds)
    with trainwatch.watch(run_id, bucket, interval=0.05, flush_timeout=5, instance_id="i-configured"):
        pass
    assert files.json("metadata.json")["instance_id"] == "i-configured"


def test_starts_at_attempt_one_when_a_missing_key_reads_as_access_denied(moto_endpoint: str, bucket: str,
                                                                          run_id: str, files: RunFiles):
    # An instance role without s3:ListBucket gets 403 AccessDenied, not 404, for a key that does not exist.
    client = boto3.client("s3", endpoint_url=moto_endpoint, config=Config(s3={"addressing_style": "path"}))

    def deny(**_: Any) -> None:
        raise ClientError({"Error": {"Code": "AccessDenied", "Message": "Access Denied"}}, "GetObject")

    client.meta.events.register("before-call.s3.GetObject", deny)
    with trainwatch.watch(run_id, bucket, interval=0.05, flush_timeout=5, s3_client=client):
        pass
    assert files.json("metadata.json")["attempt"] == 1
    assert files.json("_complete")["status"] == "completed"
