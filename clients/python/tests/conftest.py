"""A moto server in this process for the whole session; each test gets its own bucket and run id.

Nothing here talks to real AWS: credentials are dummies, the endpoint is loopback, IMDS is off.
"""

from __future__ import annotations

import os
import re
import socket
import urllib.request
import uuid
from typing import Any, Iterator

import boto3
import pytest
from botocore.config import Config
from moto.server import ThreadedMotoServer

from _support import RunFiles

_SAFE_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
}
_CLEARED = ("AWS_PROFILE", "AWS_ENDPOINT_URL_S3", "TRAINWATCH_RUN_ID", "TRAINWATCH_BUCKET", "TRAINWATCH_PREFIX",
            "TRAINWATCH_ATTEMPT", "TRAINWATCH_INSTANCE_ID", "TRAINWATCH_DISABLED", "RANK", "LOCAL_RANK",
            "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_NNODES", "GROUP_RANK", "NODE_RANK", "NNODES",
            "WORLD_SIZE", "LOCAL_WORLD_SIZE", "TRAINWATCH_NODE_FILES",
            # v1.4: a test run inside a Kubernetes pod (CI) must not describe that pod in every run it writes.
            "KUBERNETES_SERVICE_HOST", "POD_NAME", "POD_NAMESPACE", "NODE_NAME", "TRAINWATCH_K8S_NAMESPACE",
            "TRAINWATCH_EKS_CLUSTER", "TRAINWATCH_JOB_KIND", "TRAINWATCH_JOB_NAME", "TRAINWATCH_PODINFO_LABELS")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session", autouse=True)
def moto_endpoint() -> Iterator[str]:
    """Starts moto on a free loopback port and points every AWS client (ours and subprocesses') at it."""
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=10).read()
    saved = dict(os.environ)
    for name in _CLEARED:
        os.environ.pop(name, None)
    os.environ.update(_SAFE_ENV, AWS_ENDPOINT_URL=endpoint)
    try:
        yield endpoint
    finally:
        os.environ.clear()
        os.environ.update(saved)
        server.stop()


@pytest.fixture(scope="session")
def s3(moto_endpoint: str) -> Any:
    return boto3.client(
        "s3", endpoint_url=moto_endpoint, region_name="us-east-1",
        config=Config(s3={"addressing_style": "path"}, retries={"total_max_attempts": 1}),
    )


@pytest.fixture
def bucket(s3: Any) -> str:
    name = f"tw-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    return name


@pytest.fixture
def run_id(request: pytest.FixtureRequest) -> str:
    return f"{re.sub(r'[^A-Za-z0-9._-]', '-', request.node.name)[:40]}-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def files(s3: Any, bucket: str, run_id: str) -> RunFiles:
    return RunFiles(s3, bucket, run_id)
