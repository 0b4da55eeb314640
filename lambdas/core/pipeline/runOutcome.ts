import { deliver } from '../alerting/deliver.js';
import { settle } from '../alerting/outbox.js';
import type { OutboxEntry, RunRecord } from '../model/record.js';
import type { RunState } from '../model/states.js';
import { holdForGroup } from '../oncall/index.js';
import type { CheckDeps } from './deps.js';

/** What happened to one run in one check. */
export interface RunOutcome {
  readonly runId: string;
  readonly state: RunState;
  readonly from?: RunState;
  readonly transitioned: boolean;
  /** Lost a conditional write to a concurrent writer: it will alert, we must not. */
  readonly conflict: boolean;
  readonly wrote: boolean;
  readonly delivered: number;
  readonly failed: number;
  readonly skipped?: boolean;
  /** The run ended in this check: it left the sweep (pipeline/ending.ts). */
  readonly ended?: boolean;
  readonly error?: string;
  /** Health findings active on the run after this check (throughput_drop, straggler, idle_gpus, data_bound). */
  readonly degraded?: readonly string[];
}

/** The outcome of checking `r`, nothing done unless `extra` says so. */
export function outcome(r: RunRecord, extra: Partial<RunOutcome> = {}): RunOutcome {
  return {
    runId: r.runId,
    state: r.state,
    transitioned: false,
    conflict: false,
    wrote: false,
    delivered: 0,
    failed: 0,
    ...(r.facts.health?.on?.length ? { degraded: r.facts.health.on } : {}),
    ...extra,
  };
}

/** Sends one outbox entry's pending channels and records the result on the run. */
export async function send(
  deps: CheckDeps,
  runId: string,
  entry: OutboxEntry,
  now: number,
  deferred: readonly string[] = [],
): Promise<{ delivered: number; failed: number }> {
  const notifiers = deps.notifiers.filter(
    (n) => entry.pending.includes(n.channel) && !deferred.includes(n.channel),
  );
  const round = await deliver(entry.alert, notifiers, deps.deliverOptions);
  const settled = settle(entry, round, now);
  // on-call hook: channels deferred for grouping stay pending, under this sweep's lease
  const kept = holdForGroup(deps.oncall, runId, entry, settled.entry, deferred);
  await deps.states.settleOutbox(runId, entry.alert.id, kept, settled.gaveUp, now);
  return { delivered: round.delivered.length, failed: round.failed.length };
}
