import type { Alert } from './alert.js';
import { buildAlert, type Links } from './alerts.js';
import { type DeliverOptions, deliver } from './deliver.js';
import { assess, type Verdict } from './evaluate.js';
import type { RunFiles } from './listing.js';
import { type Classifier, newRecord, observe, type Reads } from './observe.js';
import { holdForGroup, type Oncall, remindersHeld, routeTransition } from './oncall/index.js';
import { isDue, LEASE_MS, openEntry, settle } from './outbox.js';
import { planReads } from './plan.js';
import type { Notifier, RunStore, StateStore } from './ports.js';
import { MAX_JSON_BYTES, MAX_TEXT_BYTES, type RunFileName } from './protocol/files.js';
import type { OutboxEntry, RunRecord } from './record.js';
import { alertsOn, RunState, UNHEALTHY } from './states.js';
import type { Thresholds } from './thresholds.js';

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
}

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
  readonly error?: string;
}

const BACKOFF_MAX_MS = 60 * 60_000;
/** A run first seen when its newest file is older than this is recorded without an alert. */
export const HISTORIC_AFTER_MS = 24 * 60 * 60_000;

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

/** Sends one outbox entry's pending channels and records the result on the run. */
async function send(
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

function outcome(r: RunRecord, extra: Partial<RunOutcome> = {}): RunOutcome {
  return {
    runId: r.runId,
    state: r.state,
    transitioned: false,
    conflict: false,
    wrote: false,
    delivered: 0,
    failed: 0,
    ...extra,
  };
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
    const reads = await readFiles(deps.runs, run, planReads(run, base, now, deps.thresholds));
    const known: RunRecord = { ...observe(base, run, reads, now, deps.classify), backoff: undefined };
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

async function transition(
  deps: CheckDeps,
  base: RunRecord,
  known: RunRecord,
  verdict: Verdict,
  run: RunFiles,
  reads: Reads,
  now: number,
): Promise<RunOutcome> {
  const from = base.version === 0 ? undefined : base.state;
  // A run first seen long after its last write (trainwatch deployed onto a bucket of old runs) is
  // history, not news: it is recorded, with its history entry, but nobody is paged for it.
  const newest = Math.max(run.firstSeenAt, ...Object.values(run.files).map((o) => o.lastModified));
  const historic = from === undefined && now - newest > HISTORIC_AFTER_MS;
  const alerting = alertsOn(from, verdict.state) && !historic;
  let draft = known;
  if (alerting && run.files.log && !('log' in reads)) {
    draft = observe(
      draft,
      run,
      { log: await deps.runs.read(run.runId, 'log', MAX_TEXT_BYTES) },
      now,
      deps.classify,
    );
  }
  const state = verdict.state;
  let next: RunRecord = {
    ...draft,
    state,
    reason: verdict.reason,
    errorType: state === RunState.FAILED ? (verdict.errorType ?? null) : null,
    restartIssuedAt: state === RunState.RESTARTING ? draft.restartIssuedAt : undefined,
    version: base.version + 1,
    since: now,
    updatedAt: now,
  };
  let entry: OutboxEntry | undefined;
  let deferred: readonly string[] = [];
  if (alerting) {
    const built: Alert = buildAlert(next, {
      kind: 'transition',
      previousState: from,
      now,
      links: deps.links,
    });
    // on-call hook: a silence holds people's channels; grouping defers Slack/SNS to the sweep's end
    const route = await routeTransition(
      deps.oncall,
      next,
      built,
      deps.notifiers.map((n) => n.channel),
      now,
    );
    const alert = route.alert;
    deferred = route.deferred;
    entry = openEntry(alert, route.channels, now);
    next = { ...next, outbox: { ...next.outbox, [alert.id]: entry }, lastAlertAt: now };
  }
  const flip = {
    runId: next.runId,
    from,
    to: state,
    reason: verdict.reason,
    at: now,
    attempt: next.attempt,
    version: next.version,
    errorType: next.errorType,
  };
  if (!(await deps.states.transition(next, flip, base.version))) return outcome(base, { conflict: true });
  const sent = entry ? await send(deps, next.runId, entry, now, deferred) : { delivered: 0, failed: 0 };
  return outcome(next, { from, transitioned: true, wrote: true, ...sent });
}

/** No transition: reminders, outbox retries, and sparse bookkeeping (only when something changed). */
async function maintain(
  deps: CheckDeps,
  base: RunRecord,
  known: RunRecord,
  verdict: Verdict,
  now: number,
): Promise<RunOutcome> {
  let next: RunRecord = known;
  const toSend: OutboxEntry[] = [];
  for (const entry of Object.values(known.outbox ?? {})) {
    if (!isDue(entry, now)) continue;
    const claimed = { ...entry, leaseUntil: now + LEASE_MS };
    next = { ...next, outbox: { ...next.outbox, [entry.alert.id]: claimed } };
    toSend.push(claimed);
  }
  const remind =
    deps.remindEveryMs !== undefined &&
    UNHEALTHY.has(base.state) &&
    now - (base.lastAlertAt ?? base.since) >= deps.remindEveryMs &&
    // on-call hook: no reminder while acknowledged (until the next transition) or silenced
    !(await remindersHeld(deps.oncall, known, now));
  if (remind) {
    const reminded: RunRecord = {
      ...next,
      reason: verdict.reason,
      version: base.version + 1,
      updatedAt: now,
      lastAlertAt: now,
    };
    const alert = buildAlert(reminded, {
      kind: 'reminder',
      previousState: base.state,
      now,
      links: deps.links,
    });
    const entry = openEntry(
      alert,
      deps.notifiers.map((n) => n.channel),
      now,
    );
    next = { ...reminded, outbox: { ...reminded.outbox, [alert.id]: entry } };
    toSend.push(entry);
    const flip = {
      runId: next.runId,
      from: base.state,
      to: base.state,
      reason: `reminder: ${verdict.reason}`,
      at: now,
      attempt: next.attempt,
      version: next.version,
    };
    if (!(await deps.states.transition(next, flip, base.version))) return outcome(base, { conflict: true });
  } else if (toSend.length > 0 || JSON.stringify(known) !== JSON.stringify(base)) {
    next = { ...next, reason: verdict.reason, version: base.version + 1, updatedAt: now };
    if (!(await deps.states.update(next, base.version))) return outcome(base, { conflict: true });
  } else {
    return outcome(base);
  }
  let delivered = 0;
  let failed = 0;
  for (const entry of toSend) {
    const r = await send(deps, next.runId, entry, now);
    delivered += r.delivered;
    failed += r.failed;
  }
  return outcome(next, { wrote: true, delivered, failed });
}
