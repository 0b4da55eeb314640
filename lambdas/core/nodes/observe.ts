import { withFinding } from '../model/findings.js';
import type { RunFiles } from '../model/listing.js';
import { type RunRecord, withFacts } from '../model/record.js';
import type { NodeObject, NodeSummaries, NodeSummary } from '../model/slices/nodes.js';
import { MAX_JSON_BYTES, nodeFile } from '../protocol/files.js';
import { type ParsedNode, parseNodeFile } from '../protocol/node.js';

/** Node bodies read this time, by rank; `undefined` means the object vanished between LIST and GET. */
export type NodeReads = ReadonlyMap<number, Uint8Array | undefined>;

/** Node bodies read this time, parsed once (observe and health both use them); undefined: vanished. */
export type ParsedNodes = ReadonlyMap<number, ParsedNode | undefined>;

/** Parses what was read; an oversized file (judged by its LIST size, never read) is a finding. */
export function parseNodeReads(run: RunFiles, reads: NodeReads): ParsedNodes {
  const size = new Map((run.nodes ?? []).map((n) => [n.rank, n.size]));
  return new Map(
    [...reads].map(([rank, body]): [number, ParsedNode | undefined] => {
      const bytes = size.get(rank) ?? 0;
      if (bytes > MAX_JSON_BYTES)
        return [
          rank,
          { ok: false, problem: `${nodeFile(rank)} is ${bytes} bytes (at most ${MAX_JSON_BYTES})` },
        ];
      return [rank, body ? parseNodeFile(body, rank) : undefined];
    }),
  );
}

const FINDING_PREFIX = 'node:';

/** Node files of the current attempt: those written before a restart belong to the old processes. */
export function currentNodes(run: RunFiles, boundary: number | undefined): readonly NodeObject[] {
  return ofAttempt(run.nodes, boundary);
}

/** The objects written after the current attempt began (all of them for a run never restarted). */
export function ofAttempt<T extends { readonly lastModified: number }>(
  objects: readonly T[] | undefined,
  boundary: number | undefined,
): readonly T[] {
  const all = objects ?? [];
  return boundary === undefined ? all : all.filter((o) => o.lastModified > boundary);
}

function mean(values: readonly number[]): number | undefined {
  return values.length ? Math.round(values.reduce((a, b) => a + b, 0) / values.length) : undefined;
}

/** One node's summary from its body, or its finding when the body is unusable. */
function summarise(n: NodeObject, p: ParsedNode | undefined, now: number, before?: NodeSummary): NodeSummary {
  const base = { lastSeen: n.lastModified, etag: n.etag, readAt: now };
  if (!p) return { ...before, ...base };
  if (!p.ok) return { ...before, ...base, finding: `invalid node file: ${p.problem}` };
  const v = p.value;
  const utils = (v.gpus ?? []).map((g) => g.util).filter((u): u is number => typeof u === 'number');
  return {
    ...base,
    instanceId: v.instance_id,
    hostname: v.hostname,
    step: v.step ?? undefined,
    stepTimeS: v.step_time_s ?? undefined,
    everyS: v.every_s ?? undefined,
    gapS: v.call_gap_s ?? undefined,
    gapP99S: v.call_gap_p99_s ?? undefined,
    calls: v.calls ?? undefined,
    stackAfterS: v.stack_after_s ?? undefined,
    gpuUtil: mean(utils),
    gpus: v.gpus?.length,
    finding: p.problems.length ? p.problems.join('; ') : undefined,
  };
}

/**
 * Folds node bodies read this time into the run's node summaries and findings. Summaries of nodes that
 * no longer write (or wrote only before a restart) are dropped; unread nodes keep what we knew, so an
 * unchanged fleet changes nothing in the record (no write). Pure.
 */
export function observeNodes(
  r: RunRecord,
  run: RunFiles,
  reads: ParsedNodes,
  boundary: number | undefined,
  now: number,
): RunRecord {
  const nodes = currentNodes(run, boundary);
  if (nodes.length === 0 && !r.facts.nodes && !run.nodeProblems) return r;
  const summaries: Record<string, NodeSummary> = {};
  let expected = r.facts.nodesExpected;
  let findings = r.facts.findings;
  for (const n of nodes) {
    const before = r.facts.nodes?.[n.rank];
    const stale = before && boundary !== undefined && before.lastSeen <= boundary ? undefined : before;
    const s = reads.has(n.rank) ? summarise(n, reads.get(n.rank), now, stale) : stale;
    if (s) summaries[n.rank] = s;
    const p = reads.get(n.rank);
    if (p?.ok && p.value.nodes !== undefined) expected = p.value.nodes;
  }
  // Findings about nodes follow the summaries: one per node with a problem, none left for nodes gone.
  for (const key of Object.keys(findings ?? {}))
    if (key.startsWith(FINDING_PREFIX) && !summaries[key.slice(FINDING_PREFIX.length)]?.finding)
      findings = withFinding(findings, key, undefined);
  for (const [rank, s] of Object.entries(summaries))
    if (s.finding) findings = withFinding(findings, `${FINDING_PREFIX}${rank}`, s.finding);
  findings = withFinding(
    findings,
    'nodes/',
    run.nodeProblems?.length ? run.nodeProblems.join('; ') : undefined,
  );
  const next: NodeSummaries | undefined = Object.keys(summaries).length ? summaries : undefined;
  return withFacts(r, { nodes: next, nodesExpected: expected, findings });
}
