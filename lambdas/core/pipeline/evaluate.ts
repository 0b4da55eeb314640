import { showsHang } from '../detection/evidence.js';
import { effectiveThresholds, forSilence, type Thresholds } from '../detection/thresholds.js';
import type { ObjectInfo, RunFiles } from '../model/listing.js';
import type { RunRecord } from '../model/record.js';
import { judgeNodes, type NodeVerdict } from '../nodes/freshness.js';
import { currentNodes } from '../nodes/observe.js';
import { RULES } from './rules.js';
import type { Judging, Verdict } from './verdict.js';

/** When the current attempt was started by a restart (absent for a run never restarted). */
export function attemptBoundary(r: RunRecord): number | undefined {
  return r.remediation?.attemptStartedAt ?? r.restartIssuedAt;
}

/** How long the run's step has not advanced (ms), or undefined when it reports no step (yet). */
export function stillFor(run: RunFiles, known: RunRecord, now: number): number | undefined {
  const boundary = attemptBoundary(known);
  const progress = run.files.progress;
  const { step, etags, stepAdvancedAt } = known.facts;
  if (!progress || step === undefined || (boundary !== undefined && progress.lastModified <= boundary))
    return undefined;
  // An unchanged ETag means the step we know is current; otherwise the last write bounds it.
  const current = etags.progress === progress.etag && stepAdvancedAt !== undefined;
  return now - (current ? stepAdvancedAt! : progress.lastModified);
}

/** What the rules see of one run now (pure; the node judgement is made at most once per instant asked). */
export function judging(run: RunFiles, known: RunRecord, now: number, t: Thresholds): Judging {
  // Files written at or before the current attempt started belong to an earlier attempt: they don't count.
  const boundary = attemptBoundary(known);
  const current = (o: ObjectInfo | undefined) =>
    o !== undefined && (boundary === undefined || o.lastModified > boundary) ? o : undefined;
  const stacks = known.facts.stacks?.attempt === known.attempt ? known.facts.stacks : undefined;
  const hang = showsHang(stacks);
  const listed = currentNodes(run, boundary);
  // One writer's silence is evidence enough; among several nodes, a learned silence needs the stacks to agree.
  const eff = forSilence(
    effectiveThresholds(t, known.meta, known.facts.cadence, known.attempt),
    listed.length < 2 || hang,
  );
  const metadata = current(run.files.metadata);
  const progress = current(run.files.progress);
  // Rank 0's writer writes node 0's file and the run's metadata.json: while they stop together, node 0 is as
  // fresh as the run's own heartbeats (their silence is TIMED_OUT, naming node 0), not a node silent "while
  // the run still beats".
  const interval = (known.facts.cadence?.everyS ?? 0) * 1000;
  const withRankZero = listed.map((n) =>
    n.rank === 0 &&
    metadata &&
    metadata.lastModified > n.lastModified &&
    metadata.lastModified - n.lastModified <= interval
      ? { ...n, lastModified: metadata.lastModified }
      : n,
  );
  const seen = new Map<number, NodeVerdict | undefined>();
  const nodesAt = (at: number) => {
    if (!seen.has(at))
      seen.set(
        at,
        judgeNodes({
          nodes: withRankZero,
          summaries: known.facts.nodes,
          expected: known.meta?.nodes ?? known.facts.nodesExpected,
          since: boundary ?? Math.min(known.firstSeenAt, run.firstSeenAt),
          now: at,
          staleAfterMs: eff.staleAfterMs,
          startupGraceMs: t.startupGraceMs,
        }),
      );
    return seen.get(at);
  };
  return {
    run,
    known,
    now,
    t,
    eff,
    boundary,
    complete: current(run.files.complete),
    error: current(run.files.error),
    metadata,
    progress,
    beats: [metadata, progress].filter((o): o is ObjectInfo => o !== undefined),
    stillFor: stillFor(run, known, now),
    stacks,
    stacksShowHang: hang,
    nodesAt,
  };
}

/**
 * Judges one run from what a LIST shows (`run`) and what we know (`known`: the stored record with any fresh
 * reads applied): the first of the ordered RULES (pipeline/rules.ts) with a verdict decides. Pure.
 */
export function assess(run: RunFiles, known: RunRecord, now: number, t: Thresholds): Verdict {
  const j = judging(run, known, now, t);
  for (const [, rule] of RULES) {
    const v = rule(j);
    if (v) return v;
  }
  throw new Error('unreachable: the last rule always judges');
}
