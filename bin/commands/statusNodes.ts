import { formatDuration } from '../../lambdas/core/base/duration.js';
import type { RunRecord } from '../../lambdas/core/model/record.js';
import type { NodeObject } from '../../lambdas/core/model/slices/nodes.js';

/** One node of `status RUN_ID --json`'s `nodes` array (stable names). */
export interface NodeRow {
  node_rank: number;
  instance_id: string | null;
  hostname: string | null;
  last_seen: string | null;
  stale: boolean;
  step: number | null;
  gpu_util: number | null;
  finding: string | null;
  /**
   * Where its training thread waits, from its stack (protocol v1.2; only while the run is stalled):
   * `kind` (collective, data_loader, checkpoint_io, cuda, lock, sleep, running), `call`, `blocks`, `at`,
   * `suspect` (the odd one out); or `problem` when its stack file was unusable. Null: no stack.
   */
  stack: StackRow | null;
}

/** One node's stack in `status RUN_ID --json`. */
export type StackRow =
  | { kind: string; call: string; blocks: string | null; at: string | null; suspect: boolean }
  | { problem: string; suspect: boolean };

/**
 * The node table of one run: freshness from a fresh LIST (`listed`), the rest from what the sweep kept.
 * Ranks the run expects but never wrote are rows too, marked missing.
 */
export function nodeRows(
  r: RunRecord,
  listed: readonly NodeObject[],
  now: number,
  staleAfterMs: number,
): NodeRow[] {
  const byRank = new Map(listed.map((n) => [n.rank, n]));
  const expected = Math.max(
    r.meta?.nodes ?? r.facts.nodesExpected ?? 0,
    ...listed.map((n) => n.rank + 1),
    ...Object.keys(r.facts.nodes ?? {}).map((k) => Number(k) + 1),
  );
  const rows: NodeRow[] = [];
  for (let rank = 0; rank < expected; rank++) {
    const s = r.facts.nodes?.[rank];
    const seen = byRank.get(rank)?.lastModified ?? s?.lastSeen;
    const stale = seen === undefined || now - seen > staleAfterMs;
    const wait = r.facts.stacks?.attempt === r.attempt ? r.facts.stacks.waits[rank] : undefined;
    const suspect = r.facts.stacks?.suspects.includes(rank) ?? false;
    const silent =
      seen === undefined ? 'never reported' : stale ? `silent for ${formatDuration(now - seen)}` : undefined;
    rows.push({
      node_rank: rank,
      instance_id: s?.instanceId ?? null,
      hostname: s?.hostname ?? null,
      last_seen: seen === undefined ? null : new Date(seen).toISOString(),
      stale,
      step: s?.step ?? null,
      gpu_util: s?.gpuUtil ?? null,
      finding: [s?.finding, silent].filter(Boolean).join('; ') || null,
      stack:
        wait === undefined
          ? null
          : typeof wait === 'string'
            ? { problem: wait, suspect }
            : { kind: wait.kind, call: wait.call, blocks: wait.blocks ?? null, at: wait.at ?? null, suspect },
    });
  }
  return rows;
}

/** `all_reduce (train.py:88)`, `* DataLoader.__next__ (queue.get, dataset.py:41)` for the odd one out. */
function stackText(s: StackRow | null): string {
  if (!s) return '-';
  const text =
    'problem' in s
      ? s.problem
      : `${s.call}${s.blocks || s.at ? ` (${[s.blocks, s.at].filter(Boolean).join(', ')})` : ''}`;
  return `${s.suspect ? '* ' : ''}${text}`;
}

/** The node table for people. */
export function nodeTable(rows: readonly NodeRow[], now: number): string {
  const header = ['NODE', 'INSTANCE', 'HOST', 'LAST BEAT', 'STEP', 'GPU UTIL', 'STACK', 'FINDING'];
  const body = rows.map((n) => [
    String(n.node_rank),
    n.instance_id ?? '-',
    n.hostname ?? '-',
    n.last_seen ? `${formatDuration(now - Date.parse(n.last_seen))} ago` : '-',
    n.step === null ? '-' : String(n.step),
    n.gpu_util === null ? '-' : `${n.gpu_util}%`,
    stackText(n.stack),
    n.finding ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  return [header, ...body]
    .map((cols) =>
      cols
        .map((c, i) => (i < cols.length - 1 ? c.padEnd(widths[i]!) : c))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
