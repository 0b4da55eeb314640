import { formatDuration } from '../base/duration.js';
import { type NodeObject, type NodeSummaries, nodeLabel } from '../model/slices/nodes.js';

/** What a node-level judgement needs to know; every time is epoch ms on S3's clock or the sweep's `now`. */
export interface NodeFreshnessInput {
  /** Node files of the current attempt, from the LIST. */
  readonly nodes: readonly NodeObject[];
  readonly summaries?: NodeSummaries;
  /** The expected node count (metadata.json `nodes`, else the node files' own `nodes`), if known. */
  readonly expected?: number;
  /** When the current attempt started (the run appeared, or a restart was issued). */
  readonly since: number;
  readonly now: number;
  readonly staleAfterMs: number;
  readonly startupGraceMs: number;
}

/** A degraded finding about nodes: who is silent or missing, in one line for the alert. */
export interface NodeVerdict {
  readonly reason: string;
  /** Who is silent and for how long, without "while the run still beats" (other states name them too). */
  readonly silentText?: string;
  readonly silent: readonly number[];
  readonly missing: readonly number[];
}

/** Ranks shown by name in one line; the rest are counted. */
const NAMED = 5;

function list(ranks: readonly number[]): string {
  const shown = ranks.slice(0, NAMED).join(', ');
  return ranks.length > NAMED ? `${shown} and ${ranks.length - NAMED} more` : shown;
}

/**
 * Silent nodes (no node file past the stale threshold) and missing ones (fewer than expected after the
 * startup grace). Called only while the run itself still beats, so a silent node is named long before
 * the collective it blocks times out. Pure; undefined when every node is accounted for.
 */
export function judgeNodes(i: NodeFreshnessInput): NodeVerdict | undefined {
  const silent = i.nodes
    .filter((n) => i.now - n.lastModified > i.staleAfterMs)
    .sort((a, b) => a.lastModified - b.lastModified || a.rank - b.rank);
  const seen = new Set(i.nodes.map((n) => n.rank));
  const missing: number[] = [];
  if (i.expected !== undefined && i.now - i.since > i.startupGraceMs)
    for (let r = 0; r < i.expected && missing.length < 1024; r++) if (!seen.has(r)) missing.push(r);
  if (silent.length === 0 && missing.length === 0) return undefined;

  const parts: string[] = [];
  let silentText: string | undefined;
  if (silent.length === 1) {
    const n = silent[0]!;
    silentText = `${nodeLabel(n.rank, i.summaries?.[n.rank])} silent for ${formatDuration(i.now - n.lastModified)} (threshold ${formatDuration(i.staleAfterMs)})`;
  } else if (silent.length > 1) {
    const oldest = silent[0]!;
    silentText = `${silent.length} nodes silent (ranks ${list(silent.map((n) => n.rank))}; the longest for ${formatDuration(i.now - oldest.lastModified)}, threshold ${formatDuration(i.staleAfterMs)})`;
  }
  if (silentText) parts.push(`${silentText} while the run still beats`);
  if (missing.length > 0)
    parts.push(
      `${i.nodes.length} of ${i.expected} nodes reported (missing rank${missing.length > 1 ? 's' : ''} ${list(missing)}, ${formatDuration(i.now - i.since)} after start)`,
    );
  return { reason: parts.join('; '), silentText, silent: silent.map((n) => n.rank), missing };
}
