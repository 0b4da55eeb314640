import { ProtocolError } from '../base/errors.js';

/** The files of the heartbeat protocol, relative to `{prefix}/{run_id}/`. */
export const RunFile = {
  metadata: 'metadata.json',
  progress: 'progress.json',
  error: '_error',
  complete: '_complete',
  log: 'logs/training_log_latest.txt',
} as const;

export type RunFileName = keyof typeof RunFile;

const BY_PATH: ReadonlyMap<string, RunFileName> = new Map(
  Object.entries(RunFile).map(([name, path]) => [path, name as RunFileName]),
);

/** Which protocol file a path (relative to the run prefix) is, if any. */
export function runFileOf(relativePath: string): RunFileName | undefined {
  return BY_PATH.get(relativePath);
}

/** Folder of the v1.1 node files, `nodes/{node_rank}.json`, one per node of a multi-node run. */
export const NODES_DIR = 'nodes/';

/** Most nodes one run may have (ranks 0–4095): keeps a run's per-node state bounded. */
export const MAX_NODES = 4096;

/** `nodes/{rank}.json`, the path of one node's file relative to the run prefix. */
export function nodeFile(rank: number): string {
  if (!Number.isInteger(rank) || rank < 0 || rank >= MAX_NODES)
    throw new ProtocolError(`node rank ${rank} is not a whole number in 0–${MAX_NODES - 1}`);
  return `${NODES_DIR}${rank}.json`;
}

/** Folder of the v1.2 stack files, `stacks/{node_rank}.json`: a stuck node's Python stacks. */
export const STACKS_DIR = 'stacks/';

/** Largest stack file we read (writers cap theirs at 64 KiB); a bigger one is a finding about its node. */
export const MAX_STACK_BYTES = 64 * 1024;

/** `stacks/{rank}.json`, the path of one node's stack file relative to the run prefix. */
export function stackFile(rank: number): string {
  return nodeFile(rank).replace(NODES_DIR, STACKS_DIR);
}

/** A path under `nodes/`: the node rank it names, or the one-line reason it names none. */
export type NodeKey = { ok: true; rank: number } | { ok: false; problem: string };

/**
 * Which node a path (relative to the run prefix, as `splitRunKey` gives it from a LIST key) is the file
 * of; undefined when the path is not under `dir` (`nodes/`, or `stacks/`). Only the canonical decimal
 * form counts, so that `nodes/03.json` can never pose as node 3.
 */
export function nodeKeyOf(relativePath: string, dir = NODES_DIR): NodeKey | undefined {
  if (!relativePath.startsWith(dir)) return undefined;
  const shown = JSON.stringify(relativePath.length > 80 ? `${relativePath.slice(0, 79)}…` : relativePath);
  const name = relativePath.slice(dir.length);
  const what = dir === NODES_DIR ? 'node' : 'stack';
  const bad = (why: string): NodeKey => ({ ok: false, problem: `${shown} is not a ${what} file: ${why}` });
  if (!name.endsWith('.json') || name.includes('/')) return bad(`expected ${dir}{node_rank}.json`);
  const rank = name.slice(0, -'.json'.length);
  if (/^-\d+$/.test(rank)) return bad(`node rank ${rank} is negative`);
  if (!/^\d+$/.test(rank)) return bad('the node rank must be a whole number');
  if (rank.length > 1 && rank.startsWith('0'))
    return bad(`node rank ${rank} has a leading zero (write ${dir}${Number(rank)}.json)`);
  if (rank.length > 6 || Number(rank) >= MAX_NODES)
    return bad(`node rank ${rank.length > 12 ? `${rank.slice(0, 12)}…` : rank} is above ${MAX_NODES - 1}`);
  return { ok: true, rank: Number(rank) };
}

/** Folder where a restart archives the previous attempt's sentinels. */
export const ATTEMPTS_DIR = 'attempts/';

/** Largest heartbeat JSON we parse; a bigger one is a finding, not a read. */
export const MAX_JSON_BYTES = 256 * 1024;
/** How much of `_error` and of the log tail we read (the end matters most). */
export const MAX_TEXT_BYTES = 64 * 1024;

/** `/training-runs/` → `training-runs`, and what is wrong with it if it holds a character a key prefix may not. */
export function normalisePrefix(raw: string): { prefix: string; problem?: string } {
  const prefix = raw.trim().replace(/^\/+|\/+$/g, '');
  return /^[A-Za-z0-9._\-/]*$/.test(prefix)
    ? { prefix }
    : { prefix, problem: 'may hold only letters, digits, . _ - /' };
}
