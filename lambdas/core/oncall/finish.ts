import type { Links } from '../alerting/alerts.js';
import { type DeliverOptions, deliver } from '../alerting/deliver.js';
import { isDue, LEASE_MS, openEntry, settle } from '../alerting/outbox.js';
import type { Alert } from '../model/alert.js';
import { GROUPED_CHANNELS } from '../model/channels.js';
import type { Notifier, StateStore } from '../model/ports.js';
import type { OutboxEntry, RunRecord, Undelivered } from '../model/record.js';
import { UNHEALTHY } from '../model/states.js';
import { groupAlert, partition } from './group.js';
import type { GroupMember } from './ports.js';
import type { Oncall } from './route.js';
import { isActive, needsSummary, resolvedFor, stillUnhealthy } from './silence.js';
import { summaryAlert } from './summary.js';

/** What the end of a sweep needs. */
export interface FinishDeps {
  readonly states: StateStore;
  readonly notifiers: readonly Notifier[];
  readonly links: Links;
  readonly deliverOptions?: DeliverOptions;
  readonly oncall: Oncall;
}

/** What the end of a sweep sent. */
export interface FinishReport {
  readonly groups: number;
  readonly grouped: number;
  readonly summaries: number;
  readonly delivered: number;
  readonly failed: number;
  /** A store write that threw: that entry waits for its lease and a later sweep (nothing is lost). */
  readonly errors: readonly { runId: string; error: string }[];
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

type Settler = (entry: OutboxEntry | null, gaveUp: readonly Undelivered[]) => Promise<void>;

async function round(d: FinishDeps, entry: OutboxEntry, now: number, store: Settler) {
  const notifiers = d.notifiers.filter((n) => entry.pending.includes(n.channel));
  const r = await deliver(entry.alert, notifiers, d.deliverOptions);
  const settled = settle(entry, r, now);
  await store(settled.entry, settled.gaveUp);
  return { delivered: r.delivered.length, failed: r.failed.length };
}

/**
 * Grouping protocol, after every run of the sweep is checked. Each deferred transition was won by this
 * sweep alone (conditional write) and its entry still carries Slack/SNS under this sweep's lease.
 * Same-kind transitions (≥ groupMin) are claimed in ONE DynamoDB transaction: the group alert is put
 * into the first member's outbox and every member's Slack/SNS is removed, each update conditional on
 * the member's lease still being ours. All or nothing: if it fails (or its answer is lost), either
 * the group exists and the members are stripped, or nothing changed and, once the lease runs out, a
 * later sweep sends each member alone. So a run's alert is never both grouped and alone, and the group
 * alert, like any outbox entry, is sent by whoever holds its lease.
 */
export async function finishGroups(d: FinishDeps, now: number): Promise<FinishReport> {
  const { groups, alone } = partition(d.oncall.collector ?? [], (x) => x.entry.alert, d.oncall.groupMin);
  let delivered = 0;
  let failed = 0;
  let made = 0;
  let grouped = 0;
  const errors: { runId: string; error: string }[] = [];
  const sendRun = async (runId: string, entry: OutboxEntry) => {
    try {
      const r = await round(d, entry, now, (e, g) => d.states.settleOutbox(runId, entry.alert.id, e, g, now));
      delivered += r.delivered;
      failed += r.failed;
    } catch (e) {
      errors.push({ runId, error: message(e) });
    }
  };
  for (const members of groups) {
    const alerts: Alert[] = members.map((m) => m.entry.alert);
    const channels = d.notifiers.map((n) => n.channel).filter((c) => GROUPED_CHANNELS.includes(c));
    const group = openEntry(groupAlert(alerts, now, d.links), channels, now);
    const claims: GroupMember[] = members.map((m) => ({
      runId: m.runId,
      alertId: m.entry.alert.id,
      lease: m.entry.leaseUntil,
      rest: m.entry.pending.filter((c) => !GROUPED_CHANNELS.includes(c)),
    }));
    const leader = members[0]!.runId;
    const won = await d.oncall.groups.claimGroup(leader, group, claims).catch(() => false);
    if (!won) continue; // the leases run out and a later sweep sends what is left, per run
    made++;
    grouped += members.length;
    await sendRun(leader, group);
  }
  for (const m of alone) await sendRun(m.runId, m.entry);
  return { groups: made, grouped, summaries: 0, delivered, failed, errors };
}

/**
 * Silence summaries: for each ended silence, the sweep that wins `claimSummary` (a conditional write on
 * the silence item) sends the one summary; a summary that failed on some channel is retried under its
 * lease by later sweeps, like a run's outbox entry.
 */
export async function finishSilences(
  d: FinishDeps,
  records: readonly RunRecord[],
  now: number,
): Promise<FinishReport> {
  const silences = d.oncall.loaded ?? [];
  const channels = d.notifiers.map((n) => n.channel);
  let delivered = 0;
  let failed = 0;
  let summaries = 0;
  const errors: { runId: string; error: string }[] = [];
  for (const s of silences) {
    // A silence until resolved ends once its run is healthy, or no longer live (ended, or never seen).
    if (!s.untilResolved || s.scope.kind !== 'run' || !isActive(s, now) || !d.oncall.silences.endSilence)
      continue;
    const runId = s.scope.runId;
    const r = records.find((x) => x.runId === runId);
    if (r && !resolvedFor(s, r)) continue;
    await d.oncall.silences.endSilence(s.id, 'trainwatch (resolved)', now).catch((e: unknown) => {
      errors.push({ runId: `silence:${s.id}`, error: message(e) });
    });
  }
  for (const s of silences) {
    try {
      const settleIt: Settler = (e, g) => d.oncall.silences.settleSummary(s.id, e, g);
      let entry: OutboxEntry | undefined;
      if (needsSummary(s, now)) {
        const runs = stillUnhealthy(s, records, silences, (r) => UNHEALTHY.has(r.state), now);
        entry = runs.length ? openEntry(summaryAlert(s, runs, now, d.links), channels, now) : undefined;
        if (!(await d.oncall.silences.claimSummary(s.id, entry ?? null, now))) continue;
      } else if (s.summary && isDue(s.summary, now)) {
        const retaken = { ...s.summary, leaseUntil: now + LEASE_MS };
        if (!(await d.oncall.silences.retakeSummary(s.id, retaken, s.summary.leaseUntil))) continue;
        entry = retaken;
      }
      if (!entry) continue;
      summaries++;
      const r = await round(d, entry, now, settleIt);
      delivered += r.delivered;
      failed += r.failed;
    } catch (e) {
      errors.push({ runId: `silence:${s.id}`, error: message(e) });
    }
  }
  return { groups: 0, grouped: 0, summaries, delivered, failed, errors };
}
