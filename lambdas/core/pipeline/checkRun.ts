import { CADENCE_WARMUP_MS, learnCadence } from '../detection/cadence.js';
import { applyHealth } from '../health/index.js';
import type { RunFiles } from '../model/listing.js';
import { type RunRecord, withFacts } from '../model/record.js';
import { RunState } from '../model/states.js';
import { observeNodes, parseNodeReads } from '../nodes/observe.js';
import { planNodeReads } from '../nodes/plan.js';
import type { CheckDeps } from './deps.js';

// Checking one run, the sweep's unit of work: read what the plan asks, fold it in (observe), judge it
// (evaluate), then write: transition.ts when the state changes, maintain.ts when it does not.

import { assess, attemptBoundary } from './evaluate.js';
import { maintain } from './maintain.js';
import { classifyError, newRecord, observe } from './observe.js';
import { planReads } from './plan.js';
import { readFiles, readNodes, withStacks } from './reads.js';
import { outcome, type RunOutcome } from './runOutcome.js';
import { transition } from './transition.js';

export type { RunOutcome } from './runOutcome.js';

const BACKOFF_MAX_MS = 60 * 60_000;

/**
 * Checks one run: reads only what the plan asks, judges it, and writes the result conditionally.
 * Only the writer that wins a transition alerts, so racing sweeps alert exactly once.
 */
export async function checkRun(
  deps: CheckDeps,
  run: RunFiles,
  stored: RunRecord | undefined,
  now: number,
): Promise<RunOutcome> {
  const base = stored ?? newRecord(run, now);
  if (base.backoff && now < base.backoff.until) return outcome(base, { skipped: true });
  try {
    const boundary = attemptBoundary(base);
    const candidate = base.version === 0 || assess(run, base, now, deps.thresholds).state !== base.state;
    // The health rules need v1.1 node files: a v1 run's progress is read too rarely to judge a rate.
    const health = deps.health?.enabled && run.nodes?.length ? deps.health : undefined;
    // Telemetry: a node body whose ETag changed is read at most once per telemetry period.
    // A run still learning its cadence (its first minutes, no pace read yet) has changed node bodies read
    // every sweep: the learned thresholds then hold minutes, not a telemetry period, after the first steps.
    const learning =
      base.facts.cadence?.attempt !== base.attempt &&
      now - (boundary ?? base.firstSeenAt) < CADENCE_WARMUP_MS &&
      // until a node file showed that its writer reports no cadence (a client older than protocol v1.3)
      Object.values(base.facts.nodes ?? {}).every((n) => n.everyS !== undefined);
    const healthDue = (readAt: number | undefined) =>
      health !== undefined && (readAt === undefined || now - readAt >= health.telemetryEveryMs);
    const telemetryDue = (readAt: number | undefined) => learning || healthDue(readAt);
    const filePlan = planReads(run, base, now, deps.thresholds);
    const nodePlan = planNodeReads(run, base, boundary, candidate, telemetryDue);
    // Telemetry is judged with the phase it was written in: a changed metadata.json comes along.
    if (health && nodePlan.length > 0 && run.files.metadata?.etag !== base.facts.etags.metadata)
      filePlan.add('metadata');
    const [reads, nodeReads] = await Promise.all([
      readFiles(deps.runs, run, filePlan),
      readNodes(deps.runs, run, nodePlan),
    ]);
    const observed = await classifyError(observe(base, run, reads, now), reads, deps.classify);
    const nodes = parseNodeReads(run, nodeReads);
    let known: RunRecord = {
      ...observeNodes(observed, run, nodes, attemptBoundary(observed), now),
      backoff: undefined,
    };
    const cadence = learnCadence(known.facts.cadence, known.facts.nodes, known.attempt, now);
    if (cadence !== known.facts.cadence) known = withFacts(known, { cadence });
    if (health) {
      const before = assess(run, known, now, deps.thresholds).state;
      known = applyHealth(
        known,
        run,
        {
          progressRead: 'progress' in reads,
          // The health rules judge telemetry periods: reads made only to learn the cadence are not theirs.
          nodes: learning
            ? new Map([...nodes].filter(([r]) => healthDue(base.facts.nodes?.[r]?.readAt)))
            : nodes,
          alive: before === RunState.RUNNING || before === RunState.WARNING,
          boundary: attemptBoundary(known),
        },
        now,
        health,
      );
    }
    known = await withStacks(deps.runs, deps.thresholds, run, known, now);
    const verdict = assess(run, known, now, deps.thresholds);
    if (verdict.state !== base.state || base.version === 0)
      return await transition(deps, base, known, verdict, run, reads, now);
    return await maintain(deps, base, known, verdict, now);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const failures = (base.backoff?.failures ?? 0) + 1;
    const until = now + Math.min(BACKOFF_MAX_MS, 60_000 * 2 ** (failures - 1));
    // Push this run's next check out instead of failing it every tick; the write may lose a race, that's fine.
    if (base.version > 0)
      await deps.states
        .update(
          { ...base, backoff: { failures, until, error: message }, version: base.version + 1 },
          base.version,
        )
        .catch(() => false);
    return outcome(base, { error: message });
  }
}
