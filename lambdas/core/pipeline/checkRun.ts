// Checking one run, the sweep's unit of work: read what the plan asks, fold it in (observe), judge it
// (evaluate), then write: transition.ts when the state changes, maintain.ts when it does not.

import { applyHealth, type HealthSettings } from '../health/index.js';
import type { RunFiles } from '../listing.js';
import { mapLimit } from '../mapLimit.js';
import { type NodeReads, observeNodes, parseNodeReads } from '../nodes/observe.js';
import { planNodeReads } from '../nodes/plan.js';
import type { Oncall } from '../oncall/index.js';
import type { Notifier, RunStore, StateStore } from '../ports.js';
import { MAX_JSON_BYTES, MAX_TEXT_BYTES, type RunFileName } from '../protocol/files.js';
import type { RunRecord } from '../record.js';
import { observeStacks, planStackReads } from '../stacks/observe.js';
import { RunState } from '../states.js';
import type { Thresholds } from '../thresholds.js';
import type { Links } from './alerts.js';
import type { DeliverOptions } from './deliver.js';
import { assess, attemptBoundary } from './evaluate.js';
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
 * v1.2: a run in or entering STALLED (`state`, as judged without its stacks) has the stack files it has not
 * seen read and judged (the odd node out); one that runs again forgets them. Stacks are never read for any
 * other run. Returns `known` itself when nothing changed.
 */
async function withStacks(
  deps: CheckDeps,
  run: RunFiles,
  known: RunRecord,
  state: RunState,
  now: number,
): Promise<RunRecord> {
  if (state !== RunState.STALLED)
    return known.stacks && (state === RunState.RUNNING || known.stacks.attempt !== known.attempt)
      ? { ...known, stacks: undefined }
      : known;
  if (!run.stacks?.length) return known;
  const boundary = attemptBoundary(known);
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
    const telemetryDue = (readAt: number | undefined) =>
      health !== undefined && (readAt === undefined || now - readAt >= health.telemetryEveryMs);
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
    if (health) {
      const before = assess(run, known, now, deps.thresholds).state;
      known = applyHealth(
        known,
        run,
        {
          progressRead: 'progress' in reads,
          nodes,
          alive: before === RunState.RUNNING || before === RunState.WARNING,
          boundary: attemptBoundary(known),
        },
        now,
        health,
      );
    }
    let verdict = assess(run, known, now, deps.thresholds);
    const stacked = await withStacks(deps, run, known, verdict.state, now);
    // Only a stalled run's reason says what its stacks say: judged again only when they changed.
    if (stacked !== known) {
      known = stacked;
      verdict = assess(run, known, now, deps.thresholds);
    }
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
