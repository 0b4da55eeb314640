import { buildAlert } from '../alerting/alerts.js';
import { openEntry } from '../alerting/outbox.js';
import type { Alert } from '../model/alert.js';
import type { RunFiles } from '../model/listing.js';
import type { OutboxEntry, RunRecord } from '../model/record.js';
import { alertsOn, RunState } from '../model/states.js';
import { routeTransition } from '../oncall/index.js';
import { MAX_TEXT_BYTES } from '../protocol/files.js';
import type { CheckDeps } from './deps.js';
import { observe, type Reads } from './observe.js';
import { outcome, type RunOutcome, send } from './runOutcome.js';
import type { Verdict } from './verdict.js';

/** A run first seen when its newest file is older than this is recorded without an alert. */
export const HISTORIC_AFTER_MS = 24 * 60 * 60_000;

/** The run's state changed (or it is new): write the transition conditionally; only the winner alerts. */
export async function transition(
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
    draft = observe(draft, run, { log: await deps.runs.read(run.runId, 'log', MAX_TEXT_BYTES) }, now);
  }
  const state = verdict.state;
  let next: RunRecord = {
    ...draft,
    state,
    reason: verdict.reason,
    cause: verdict.cause,
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
