"""Facts about where the training runs: the EC2 instance id (IMDSv2) and this process's rank."""

from __future__ import annotations

import logging
import os
import urllib.request
from typing import Mapping, Optional

log = logging.getLogger("trainwatch")

_IMDS = "http://169.254.169.254"


def instance_id_from_imds(env: Mapping[str, str], timeout: float = 1.0) -> Optional[str]:
    """The EC2 instance id from IMDSv2, or None off EC2 (a short timeout keeps that cheap).

    Honours botocore's `AWS_EC2_METADATA_DISABLED` and `AWS_EC2_METADATA_SERVICE_ENDPOINT`.
    """
    if env.get("AWS_EC2_METADATA_DISABLED", "").strip().lower() == "true":
        return None
    base = env.get("AWS_EC2_METADATA_SERVICE_ENDPOINT", "").strip().rstrip("/") or _IMDS
    # A proxy would swallow the link-local address; IMDS is always reached directly.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        token_request = urllib.request.Request(
            f"{base}/latest/api/token", method="PUT", headers={"X-aws-ec2-metadata-token-ttl-seconds": "60"}
        )
        with opener.open(token_request, timeout=timeout) as response:
            token = response.read().decode()
        id_request = urllib.request.Request(
            f"{base}/latest/meta-data/instance-id", headers={"X-aws-ec2-metadata-token": token}
        )
        with opener.open(id_request, timeout=timeout) as response:
            value = response.read().decode().strip()
    except Exception as error:  # off EC2, IMDS disabled, hop limit too low in a container...
        log.debug("trainwatch: no instance id from IMDS (%s)", error)
        return None
    return value or None


def rank(env: Mapping[str, str]) -> int:
    """This process's global rank: `RANK`, else `SLURM_PROCID` (srun without torchrun), else `LOCAL_RANK`,
    else 0 (a single process)."""
    for name in ("RANK", "SLURM_PROCID", "LOCAL_RANK"):
        raw = env.get(name, "").strip()
        if raw:
            try:
                return int(raw)
            except ValueError:
                log.warning("trainwatch: ignoring %s=%r (not an integer)", name, raw)
    return 0


def env_flag(env: Mapping[str, str], name: str) -> Optional[bool]:
    """`1/true/yes/on` → True, `0/false/no/off` → False, unset → None."""
    raw = env.get(name, "").strip().lower()
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    return None


def hostname() -> str:
    return os.uname().nodename if hasattr(os, "uname") else os.environ.get("COMPUTERNAME", "")
