import { MAX_NODES } from '../../lambdas/core/protocol/files.js';

type Env = Readonly<Record<string, string | undefined>>;

/** Where this process sits in a multi-node run; `nodeRank` undefined: it writes no node file. */
export interface Topology {
  readonly nodeRank?: number;
  readonly nodes?: number;
  readonly localRank?: number;
}

/** The launcher variables read, in order (the same rules as the Python client's `_nodes.py`). */
export const NODE_RANK_VARS = ['GROUP_RANK', 'NODE_RANK', 'SLURM_NODEID'] as const;
export const NODE_COUNT_VARS = ['NNODES', 'SLURM_NNODES'] as const;
export const LOCAL_RANK_VARS = ['LOCAL_RANK', 'SLURM_LOCALID'] as const;

function int(env: Env, name: string, least = 0): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  // A malformed variable is skipped (the next rule decides), as the Python client does.
  if (!/^-?\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= least && Number.isSafeInteger(n) ? n : undefined;
}

function first(env: Env, names: readonly string[], least = 0): number | undefined {
  for (const name of names) {
    const n = int(env, name, least);
    if (n !== undefined) return n;
  }
  return undefined;
}

/**
 * Node rank: GROUP_RANK (torchrun), NODE_RANK (Ray, pod specs), SLURM_NODEID, else RANK // LOCAL_WORLD_SIZE.
 * Count: NNODES, SLURM_NNODES, else WORLD_SIZE // LOCAL_WORLD_SIZE. Local rank: LOCAL_RANK, SLURM_LOCALID,
 * else RANK % LOCAL_WORLD_SIZE. Nothing set: node 0 of 1.
 */
export function topology(env: Env): Topology {
  const rank = int(env, 'RANK');
  const world = int(env, 'WORLD_SIZE', 1);
  const localWorld = int(env, 'LOCAL_WORLD_SIZE', 1);
  let localRank = first(env, LOCAL_RANK_VARS);
  if (localRank === undefined && rank !== undefined && localWorld) localRank = rank % localWorld;
  let nodeRank = first(env, NODE_RANK_VARS);
  if (nodeRank === undefined && rank !== undefined && localWorld) nodeRank = Math.floor(rank / localWorld);
  let nodes = first(env, NODE_COUNT_VARS, 1);
  if (nodes === undefined && world && localWorld) nodes = Math.max(1, Math.floor(world / localWorld));
  if (rank === undefined && localRank === undefined && nodeRank === undefined)
    return { nodeRank: 0, nodes: nodes ?? 1, localRank: 0 };
  if (rank === 0) {
    nodeRank ??= 0; // every launcher puts global rank 0 on node 0
    localRank ??= 0;
  }
  if (nodeRank !== undefined && nodeRank >= (nodes ?? MAX_NODES)) nodeRank = undefined;
  if (nodes !== undefined && nodes > MAX_NODES) nodes = undefined;
  return { nodeRank: localRank === 0 ? nodeRank : undefined, nodes, localRank };
}
