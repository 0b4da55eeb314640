// Checking one run, the sweep's unit of work: read what the plan asks, fold it in (observe), judge it
// (evaluate), then write: transition.ts when the state changes, maintain.ts when it does not.

import { CADENCE_WARMUP_MS, learnCadence } from '../detection/cadence.js';
import { effectiveThresholds, type Thresholds } from '../detection/thresholds.js';
import { applyHealth, type HealthSettings } from '../health/index.js';
import type { RunFiles } from '../listing.js';
import { mapLimit } from '../mapLimit.js';
import { type NodeReads, observeNodes, ofAttempt, parseNodeReads } from '../nodes/observe.js';
import { planNodeReads } from '../nodes/plan.js';
import type { Oncall } from '../oncall/index.js';
import type { Notifier, RunStore, StateStore } from '../ports.js';
import { MAX_JSON_BYTES, MAX_TEXT_BYTES, type RunFileName } from '../protocol/files.js';
import type { RunRecord } from '../record.js';
import { observeStacks, planStackReads } from '../stacks/observe.js';
import { RunState } from '../states.js';
import type { Links } from './alerts.js';
import type { DeliverOptions } from './deliver.js';
import { assess, attemptBoundary, stillFor } from './evaluate.js';
import { maintain } from './maintain.js';
import { type Classifier, classifyError, newRecord, observe, type Reads } from './observe.js';
import { planReads } from './plan.js';
import { outcome, type RunOutcome } from './runOutcome.js';
import { transition } from './transition.js';

export type { RunOutcome } from './runOutcome.js';

/** What checking a run needs: ports, thresholds and the classifier. Built once per cold start. */
export interface CheckDeps {
  readonly runs: RunStore;
  readonly states: StateStore;
  readonly notifiers: readonly Notifier[];
  readonly thresholds: Thresholds;
  readonly classify: Classifier;
  readonly links: Links;
  readonly remindEveryMs?: number;
  readonly deliverOptions?: DeliverOptions;
  /** Silences, acknowledgements and grouping (lambdas/core/oncall); absent: none of them. */
  readonly oncall?: Oncall;
  /** The healthy-run rules (throughput, stragglers, idle GPUs: lambdas/core/health); absent: off. */
  readonly health?: HealthSettings;
}

const BACKOFF_MAX_MS = 60 * 60_000;

async function readFiles(runs: RunStore, run: RunFiles, plan: Set<RunFileName>): Promise<Reads> {
  const reads: Reads = {};
  await Promise.all(
    [...plan].map(async (name) => {
      const size = run.files[name]?.size ?? 0;
      // _complete is read whole too (no tail): an oversized one must not take the sweep's memory down.
      if (name !== 'error' && name !== 'log' && size > MAX_JSON_BYTES) reads[name] = undefined;
      else
        reads[name] = await runs.read(
          run.runId,
          name,
          name === 'error' || name === 'log' ? MAX_TEXT_BYTES : undefined,
        );
    }),
  );
  return reads;
}

/**
 * Node bodies, a few at a time (a 256-node run's first look must not open 256 sockets at once). An
 * oversized one is judged from its LIST size (parseNodeReads says so) and never downloaded.
 */
async function readNodes(runs: RunStore, run: RunFiles, ranks: readonly number[]): Promise<NodeReads> {
  const size = new Map((run.nodes ?? []).map((n) => [n.rank, n.size]));
  const out = new Map<number, Uint8Array | undefined>();
  await mapLimit(ranks, 16, async (rank) => {
    out.set(rank, (size.get(rank) ?? 0) > MAX_JSON_BYTES ? undefined : await runs.readNode(run.runId, rank));
  });
  return out;
}

/**
 * v1.2: the stacks of a stuck run (its step still past a stall threshold, or an `_error` written)
 * are read where their ETag is new and judged (the odd node out); they are forgotten once the client deleted
 * them (its thread moved on) or the attempt changed. Returns `known` itself when nothing changed.
 */
async function withStacks(deps: CheckDeps, run: RunFiles, known: RunRecord, now: number): Promise<RunRecord> {
  const boundary = attemptBoundary(known);
  if (ofAttempt(run.stacks, boundary).length === 0)
    return known.stacks ? { ...known, stacks: undefined } : known;
  const eff = effectiveThresholds(deps.thresholds, known.meta, known.cadence, known.attempt);
  const still = stillFor(run, known, now);
  const stuck =
    (still !== undefined && still > (eff.stuckAfterMs ?? eff.stallAfterMs)) ||
    ofAttempt(run.files.error ? [run.files.error] : [], boundary).length > 0;
  if (!stuck) return known.stacks ? { ...known, stacks: undefined } : known;
  const reads = new Map<number, Uint8Array | undefined>();
  await mapLimit(planStackReads(run, known, boundary), 16, async (rank) => {
    reads.set(rank, await deps.runs.readStack(run.runId, rank));
  });
  return observeStacks(known, run, reads, boundary, now);
}

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
      base.cadence?.attempt !== base.attempt &&
      now - (boundary ?? base.firstSeenAt) < CADENCE_WARMUP_MS &&
      // until a node file showed that its writer reports no cadence (a client older than protocol v1.3)
      Object.values(base.nodes ?? {}).every((n) => n.everyS !== undefined);
    const healthDue = (readAt: number | undefined) =>
      health !== undefined && (readAt === undefined || now - readAt >= health.telemetryEveryMs);
    const telemetryDue = (readAt: number | undefined) => learning || healthDue(readAt);
    const filePlan = planReads(run, base, now, deps.thresholds);
    const nodePlan = planNodeReads(run, base, boundary, candidate, telemetryDue);
    // Telemetry is judged with the phase it was written in: a changed metadata.json comes along.
    if (health && nodePlan.length > 0 && run.files.metadata?.etag !== base.etags.metadata)
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
    const cadence = learnCadence(known.cadence, known.nodes, known.attempt, now);
    if (cadence !== known.cadence) known = { ...known, cadence };
    if (health) {
      const before = assess(run, known, now, deps.thresholds).state;
      known = applyHealth(
        known,
        run,
        {
          progressRead: 'progress' in reads,
          // The health rules judge telemetry periods: reads made only to learn the cadence are not theirs.
          nodes: learning ? new Map([...nodes].filter(([r]) => healthDue(base.nodes?.[r]?.readAt))) : nodes,
          alive: before === RunState.RUNNING || before === RunState.WARNING,
          boundary: attemptBoundary(known),
        },
        now,
        health,
      );
    }
    known = await withStacks(deps, run, known, now);
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
