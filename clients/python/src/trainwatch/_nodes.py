"""Where this process sits in a multi-node run (protocol v1.1), read from what the launcher set.

| launcher | sets (among others) |
|---|---|
| torchrun (and Kubeflow PyTorchJob / TrainJob pods, which run torchrun) | `RANK`, `LOCAL_RANK`, `GROUP_RANK`, `LOCAL_WORLD_SIZE`, `WORLD_SIZE` |
| SLURM `srun` | `SLURM_PROCID`, `SLURM_LOCALID`, `SLURM_NODEID`, `SLURM_NNODES` |
| Ray Train (`TorchTrainer`) | `RANK`, `LOCAL_RANK`, `NODE_RANK`, `LOCAL_WORLD_SIZE`, `WORLD_SIZE` |
| EKS pods without torchrun | whatever the pod spec sets: `NODE_RANK` and `NNODES` are read |

Node rank: `GROUP_RANK`, `NODE_RANK`, `SLURM_NODEID`, else `RANK // LOCAL_WORLD_SIZE`. Expected count:
`NNODES`, `SLURM_NNODES`, else `WORLD_SIZE // LOCAL_WORLD_SIZE`. Local rank: `LOCAL_RANK`, `SLURM_LOCALID`,
else `RANK % LOCAL_WORLD_SIZE`. A plain `python train.py` is node 0 of 1.
"""

from __future__ import annotations

import logging
from typing import Mapping, NamedTuple, Optional

from ._protocol import MAX_NODES

log = logging.getLogger("trainwatch")

NODE_RANK_VARS = ("GROUP_RANK", "NODE_RANK", "SLURM_NODEID")
NODE_COUNT_VARS = ("NNODES", "SLURM_NNODES")
LOCAL_RANK_VARS = ("LOCAL_RANK", "SLURM_LOCALID")


class Topology(NamedTuple):
    """This process's place: `node_rank` None means it writes no node file (not local rank 0, or unknown)."""

    node_rank: Optional[int]
    nodes: Optional[int]
    local_rank: Optional[int]


def _int(env: Mapping[str, str], name: str, least: int = 0) -> Optional[int]:
    raw = env.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        log.warning("trainwatch: ignoring %s=%r (not an integer)", name, raw)
        return None
    if value < least:
        log.warning("trainwatch: ignoring %s=%r (below %d)", name, raw, least)
        return None
    return value


def _first(env: Mapping[str, str], names: tuple[str, ...], least: int = 0) -> Optional[int]:
    for name in names:
        value = _int(env, name, least)
        if value is not None:
            return value
    return None


def topology(env: Mapping[str, str]) -> Topology:
    """Node rank, expected node count and local rank from the launcher's environment."""
    rank = _int(env, "RANK")
    world = _int(env, "WORLD_SIZE", 1)
    local_world = _int(env, "LOCAL_WORLD_SIZE", 1)
    local_rank = _first(env, LOCAL_RANK_VARS)
    if local_rank is None and rank is not None and local_world:
        local_rank = rank % local_world
    node_rank = _first(env, NODE_RANK_VARS)
    if node_rank is None and rank is not None and local_world:
        node_rank = rank // local_world
    nodes = _first(env, NODE_COUNT_VARS, 1)
    if nodes is None and world and local_world:
        nodes = max(1, world // local_world)
    if rank is None and local_rank is None and node_rank is None:
        return Topology(0, nodes or 1, 0)  # one process: the whole run is node 0
    if node_rank is None and rank == 0:
        node_rank = 0  # every launcher puts global rank 0 on node 0
    if local_rank is None and rank == 0:
        local_rank = 0
    if node_rank is not None and (node_rank >= MAX_NODES or (nodes is not None and node_rank >= nodes)):
        log.warning("trainwatch: node rank %d is not below the node count %s: writing no node file", node_rank,
                    nodes if nodes is not None else MAX_NODES)
        node_rank = None
    if nodes is not None and nodes > MAX_NODES:
        nodes = None
    if local_rank != 0:
        node_rank = None
    return Topology(node_rank, nodes, local_rank)
