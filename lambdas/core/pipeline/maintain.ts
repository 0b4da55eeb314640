import { buildAlert } from '../alerting/alerts.js';
import { isDue, LEASE_MS, openEntry } from '../alerting/outbox.js';
import type { OutboxEntry, RunRecord } from '../model/record.js';
import { UNHEALTHY } from '../model/states.js';
import { remindersHeld } from '../oncall/index.js';
import type { CheckDeps } from './deps.js';
import { outcome, type RunOutcome, send } from './runOutcome.js';
import type { Verdict } from './verdict.js';

/** No transition: reminders, outbox retries, and sparse bookkeeping (only when something changed). */
export async function maintain(
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
      cause: verdict.cause,
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
    next = {
      ...next,
      reason: verdict.reason,
      cause: verdict.cause,
      version: base.version + 1,
      updatedAt: now,
    };
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
