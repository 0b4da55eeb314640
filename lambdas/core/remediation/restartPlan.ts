import { type NodeSummaries, nodeLabel } from '../model/slices/nodes.js';
import type { Culprit } from './culprit.js';

/** How a multi-node job is restarted: on every node's instance, or once on node 0 (a scheduler). */
export const RESTART_TARGETS = ['all', 'head'] as const;
export type RestartTarget = (typeof RESTART_TARGETS)[number];

/** What one node's restart command is given (the restart document's parameters). */
export interface NodeRestart {
  readonly rank: number;
  readonly instanceId: string;
  readonly nodeRank: number;
  readonly nnodes: number;
  readonly masterAddr?: string;
  /** Hosts the scheduler should avoid (a `head` restart around a broken node). */
  readonly excludeHosts?: readonly string[];
}

export type RestartPlan =
  | { readonly ok: true; readonly restarts: readonly NodeRestart[]; readonly note?: string }
  | { readonly ok: false; readonly refused: string };

/** SendCommand takes at most this many instance ids. */
export const SEND_COMMAND_MAX_TARGETS = 50;

/** Splits a list into SendCommand-sized batches. */
export function batches<T>(items: readonly T[], size = SEND_COMMAND_MAX_TARGETS): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Plans the restart of a multi-node job. `all` needs every node's instance and refuses when a node's
 * hardware broke (the job would land on the same broken GPU); `head` runs once on node 0 and names the
 * culprit's host in `excludeHosts` for the scheduler. Pure.
 */
export function planNodeRestart(input: {
  readonly target: RestartTarget;
  readonly nodes: NodeSummaries;
  readonly nnodes: number;
  readonly culprit?: Culprit;
}): RestartPlan {
  const { target, nodes, nnodes, culprit } = input;
  const head = nodes['0'];
  if (target === 'head') {
    if (!head?.instanceId)
      return {
        ok: false,
        refused: 'node 0 has no known instance id: cannot restart the job from its head node',
      };
    const exclude = culprit && culprit.rank !== 0 && culprit.hostname ? [culprit.hostname] : undefined;
    if (culprit?.hardware && culprit.rank === 0)
      return {
        ok: false,
        refused: `the head node itself is broken (${culprit.evidence}): replace ${culprit.label} first`,
      };
    return {
      ok: true,
      restarts: [
        {
          rank: 0,
          instanceId: head.instanceId,
          nodeRank: 0,
          nnodes,
          masterAddr: head.hostname,
          excludeHosts: exclude,
        },
      ],
      note: exclude ? `asked the scheduler to avoid ${exclude.join(', ')} (${culprit!.label})` : undefined,
    };
  }
  if (culprit?.hardware)
    return {
      ok: false,
      refused: `the restart would land on the same broken GPU: replace ${culprit.label} first (${culprit.evidence})`,
    };
  const missing: number[] = [];
  const restarts: NodeRestart[] = [];
  for (let rank = 0; rank < nnodes; rank++) {
    const s = nodes[String(rank)];
    if (!s?.instanceId) missing.push(rank);
    else
      restarts.push({ rank, instanceId: s.instanceId, nodeRank: rank, nnodes, masterAddr: head?.hostname });
  }
  if (missing.length)
    return {
      ok: false,
      refused: `cannot restart on every node: no instance id for ${missing.length === 1 ? nodeLabel(missing[0]!, undefined) : `nodes ${missing.slice(0, 8).join(', ')}`}`,
    };
  if (!head?.hostname)
    return {
      ok: false,
      refused: 'node 0 reported no hostname: the other nodes would not know the master address',
    };
  return { ok: true, restarts };
}
