import { describe, expect, it } from 'vitest';
import type { OutboxEntry } from '../../../lambdas/core/model/record.js';
import type { GroupMember, GroupStore, Oncall, SilenceStore } from '../../../lambdas/core/oncall/index.js';
import type { CheckDeps } from '../../../lambdas/core/pipeline/deps.js';
import { sweep } from '../../../lambdas/core/pipeline/sweep.js';
import { FakeRunStore, FakeStateStore, NO_WAIT, RecordingNotifier } from '../../support/fakes.js';

const M = 60_000;
const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const RUNS = ['a-1', 'a-2', 'a-3'];

/** What the DynamoDB transaction does, on the fake store; `after` decides how the call ends. */
class FakeGroups implements GroupStore {
  claims = 0;
  constructor(
    private readonly states: FakeStateStore,
    private readonly mode: 'ok' | 'refused' | 'answer lost',
  ) {}
  async claimGroup(leader: string, group: OutboxEntry, members: readonly GroupMember[]): Promise<boolean> {
    this.claims++;
    if (this.mode === 'refused') return false;
    for (const m of members) {
      const r = this.states.records.get(m.runId)!;
      if (r.outbox?.[m.alertId]?.leaseUntil !== m.lease) return false;
    }
    for (const m of members) {
      const r = this.states.records.get(m.runId)!;
      const outbox = { ...r.outbox };
      if (m.rest.length) outbox[m.alertId] = { ...outbox[m.alertId]!, pending: [...m.rest] };
      else delete outbox[m.alertId];
      if (m.runId === leader) outbox[group.alert.id] = group;
      this.states.records.set(m.runId, { ...r, outbox, version: r.version + 1 });
    }
    if (this.mode === 'answer lost') throw new Error('socket hang up');
    return true;
  }
}

const noSilences: SilenceStore = {
  list: async () => [],
  claimSummary: async () => false,
  retakeSummary: async () => false,
  settleSummary: async () => {},
};

function harness(mode: 'ok' | 'refused' | 'answer lost') {
  const runs = new FakeRunStore();
  const states = new FakeStateStore();
  const slack = new RecordingNotifier('slack');
  const events = new RecordingNotifier('events');
  const groups = new FakeGroups(states, mode);
  const oncall: Oncall = { silences: noSilences, groups, groupMin: 3 };
  const deps: CheckDeps & { concurrency: number } = {
    runs,
    states,
    notifiers: [slack, events],
    thresholds: { staleAfterMs: 10 * M, stallAfterMs: 30 * M, startupGraceMs: 15 * M, phaseStaleAfterMs: {} },
    classify: () => ({ error_type: null }),
    links: { bucket: 'b', prefix: 'training-runs', region: 'us-east-1' },
    deliverOptions: NO_WAIT,
    concurrency: 3,
    oncall,
  };
  for (const id of RUNS) runs.put(id, 'metadata', { run_id: id, phase: 'training', last_update: T0 }, T0);
  /** Slack messages per run: how often each run reached Slack, alone or inside a grouped alert. */
  const slackPerRun = () => {
    const n: Record<string, number> = {};
    for (const a of slack.sent) for (const r of a.runs ?? [a]) n[r.runId] = (n[r.runId] ?? 0) + 1;
    return n;
  };
  return { deps, slack, events, groups, slackPerRun };
}

describe('grouping protocol', () => {
  it('claims the group in one write and sends one grouped alert', async () => {
    const h = harness('ok');
    await sweep(h.deps, T0);
    const r = await sweep(h.deps, T0 + 11 * M);
    expect(r.oncall).toEqual({ groups: 1, grouped: 3, summaries: 0 });
    expect(h.slack.sent.map((a) => a.kind)).toEqual(['group']);
    expect(h.events.sent.map((a) => a.runId).sort()).toEqual(RUNS);
    await sweep(h.deps, T0 + 20 * M);
    expect(h.slackPerRun()).toEqual({ 'a-1': 1, 'a-2': 1, 'a-3': 1 });
  });

  it('when the claim fails, sends nothing to Slack now and each run alone once its lease runs out', async () => {
    const h = harness('refused');
    await sweep(h.deps, T0);
    await sweep(h.deps, T0 + 11 * M);
    expect(h.slack.sent).toEqual([]);
    expect(h.events.sent).toHaveLength(3);
    await sweep(h.deps, T0 + 12 * M); // the leases still hold
    expect(h.slack.sent).toEqual([]);
    await sweep(h.deps, T0 + 14 * M);
    expect(h.slack.sent.map((a) => a.kind)).toEqual(['transition', 'transition', 'transition']);
    await sweep(h.deps, T0 + 30 * M);
    expect(h.slackPerRun()).toEqual({ 'a-1': 1, 'a-2': 1, 'a-3': 1 });
    expect(h.events.sent).toHaveLength(3);
  });

  it('when the claim succeeded but its answer was lost, the group goes out once, after the lease, never alone', async () => {
    const h = harness('answer lost');
    await sweep(h.deps, T0);
    await sweep(h.deps, T0 + 11 * M);
    expect(h.slack.sent).toEqual([]);
    await sweep(h.deps, T0 + 14 * M);
    expect(h.slack.sent.map((a) => a.kind)).toEqual(['group']);
    await sweep(h.deps, T0 + 30 * M);
    expect(h.slackPerRun()).toEqual({ 'a-1': 1, 'a-2': 1, 'a-3': 1 });
  });
});
