"""The S3 client the writer builds, and the one read it makes (the previous attempt's number)."""

from __future__ import annotations

import json
from typing import Any


def previous_attempt(s3: Any, bucket: str, key: str) -> int:
    """The attempt number in an earlier attempt's metadata.json; 0 when there is none."""
    try:
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    except Exception as error:
        code = getattr(error, "response", {}).get("Error", {}).get("Code")
        # Without s3:ListBucket, S3 answers a missing key with 403, not 404: that, too, means no earlier attempt.
        if code in ("NoSuchKey", "404", "NotFound", "AccessDenied", "403"):
            return 0
        raise
    try:
        attempt = json.loads(body).get("attempt")
    except Exception:
        return 1  # an unreadable file still means there was an attempt before
    return attempt if isinstance(attempt, int) and not isinstance(attempt, bool) and attempt >= 1 else 1


def s3_client(env: dict[str, str]) -> Any:
    import boto3
    from botocore.config import Config

    endpoint = env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL") or None
    config = Config(
        connect_timeout=3,
        read_timeout=10,
        # Our own queue retries with backoff; botocore's retries would only delay the next heartbeat.
        retries={"mode": "standard", "total_max_attempts": 2},
        s3={"addressing_style": "path"} if endpoint else None,
    )
    region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or None
    # A private session: boto3's default one is not safe to create from two threads at once.
    return boto3.session.Session(region_name=region).client("s3", endpoint_url=endpoint, config=config)
