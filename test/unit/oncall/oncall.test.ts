import { describe, expect, it } from 'vitest';
import { scopeFrom } from '../../../bin/commands/silence.js';
import { pagerDutyError } from '../../../lambdas/adapters/channels/pagerDuty/pagerDutyNotifier.js';
import { buildAlert, type Links } from '../../../lambdas/core/alerting/alerts.js';
import { openEntry } from '../../../lambdas/core/alerting/outbox.js';
import type { Alert } from '../../../lambdas/core/model/alert.js';
import type { RunRecord } from '../../../lambdas/core/model/record.js';
import { ALERT_PROGRESS_KEYS } from '../../../lambdas/core/model/slices/attempt.js';
import { type RunState, UNHEALTHY } from '../../../lambdas/core/model/states.js';
import {
  acknowledge,
  ackProblem,
  currentAck,
  groupAlert,
  groupKey,
  heldBy,
  holdForGroup,
  type Oncall,
  pagerDutyEvents,
  pagerDutySeverity,
  partition,
  reasonClass,
  remindersHeld,
  routeTransition,
  type Silence,
  stillUnhealthy,
  summaryAlert,
} from '../../../lambdas/core/oncall/index.js';
import { slackMessage } from '../../../lambdas/core/render/slack.js';
import { snsMessage } from '../../../lambdas/core/render/text.js';
import { record } from '../../support/fakes.js';

const M = 60_000;
const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const LINKS: Links = { bucket: 'b', prefix: 'training-runs', region: 'us-east-1' };

function alertOf(runId: string, state: RunState, reason: string, extra: Partial<RunRecord> = {}): Alert {
  return buildAlert(record({ runId, state, reason, version: 2, ...extra }), {
    kind: 'transition',
    previousState: 'RUNNING',
    now: NOW,
    links: LINKS,
  });
}

const silence = (over: Partial<Silence>): Silence => ({
  id: 's-00000001',
  scope: { kind: 'all' },
  reason: 'drain',
  by: 'ana',
  createdAt: NOW - 10 * M,
  endsAt: NOW + 10 * M,
  ...over,
});

describe('reasonClass and groupKey', () => {
  it.each([
    ['no heartbeat for 11m (last 2025-06-01T11:49:00Z)', 'no heartbeat for #'],
    ['no heartbeat for 12m', 'no heartbeat for #'],
    ['no heartbeat for 10m 59s (threshold 10m)', 'no heartbeat for #'],
    ['never started: no heartbeat 20s after the run appeared', 'never started'],
    ['step 77 has not advanced for 31m', 'step # has not advanced for #'],
    ['invalid heartbeat: metadata.json is not valid JSON', 'invalid heartbeat'],
    ['phase "setup" silent for 40m', 'phase _ silent for #'],
  ])('%s → %s', (reason, cls) => {
    expect(reasonClass(reason)).toBe(cls);
  });

  it.each<[string, Alert, string | undefined]>([
    ['timed out', alertOf('a', 'TIMED_OUT', 'no heartbeat for 11m'), 'TIMED_OUT|reason:no heartbeat for #'],
    ['failed, typed', alertOf('a', 'FAILED', 'NCCL error', { errorType: 'nccl' }), 'FAILED|error:nccl'],
    ['recovery', alertOf('a', 'RUNNING', 'heartbeats resumed'), undefined],
    ['success', alertOf('a', 'SUCCEEDED', 'done'), undefined],
    ['silenced', { ...alertOf('a', 'FAILED', 'x'), silenced: true }, undefined],
    ['reminder', { ...alertOf('a', 'FAILED', 'x'), kind: 'reminder' }, undefined],
  ])('%s', (_name, alert, key) => {
    expect(groupKey(alert)).toBe(key);
  });
});

describe('partition', () => {
  const timedOut = (id: string, minutes: number) => alertOf(id, 'TIMED_OUT', `no heartbeat for ${minutes}m`);
  it.each<[string, Alert[], number, string[][], string[]]>([
    [
      'three of a kind group',
      [timedOut('c', 11), timedOut('a', 12), timedOut('b', 13)],
      3,
      [['a', 'b', 'c']],
      [],
    ],
    ['two stay alone', [timedOut('a', 11), timedOut('b', 11)], 3, [], ['a', 'b']],
    [
      'different kinds never mix',
      [timedOut('a', 11), timedOut('b', 11), alertOf('c', 'FAILED', 'oom', { errorType: 'oom' })],
      2,
      [['a', 'b']],
      ['c'],
    ],
    [
      '0 turns grouping off',
      [timedOut('a', 11), timedOut('b', 11), timedOut('c', 11)],
      0,
      [],
      ['a', 'b', 'c'],
    ],
  ])('%s', (_name, alerts, min, groups, alone) => {
    const p = partition(alerts, (a) => a, min);
    expect(p.groups.map((g) => g.map((a) => a.runId))).toEqual(groups);
    expect(p.alone.map((a) => a.runId).sort()).toEqual(alone);
  });

  it('splits a group larger than one DynamoDB transaction', () => {
    const many = Array.from({ length: 120 }, (_, i) => timedOut(`r-${String(i).padStart(3, '0')}`, 11));
    expect(partition(many, (a) => a, 3).groups.map((g) => g.length)).toEqual([99, 21]);
  });

  it('writes the grouped alert people read', () => {
    const g = groupAlert([timedOut('a-1', 11), timedOut('a-2', 12), timedOut('a-3', 11)], NOW, LINKS);
    expect(g.kind).toBe('group');
    expect(g.id).toBe('group:a-1:2:transition');
    expect(g.reason).toBe(
      '3 runs TIMED_OUT in one sweep: a-1, a-2, a-3; a shared cause is likely: bucket permissions, the region, the cluster',
    );
    expect(g.runs!.map((r) => r.runId)).toEqual(['a-1', 'a-2', 'a-3']);
  });

  it('carries none of the first run’s own progress: every key an alert copies from the facts is cleared', () => {
    const facts = { step: 5, totalSteps: 10, loss: 1.5, learningRate: 3e-4, lastLogLine: 'step 5' };
    const first = alertOf('a-1', 'TIMED_OUT', 'no heartbeat for 11m', { facts: { etags: {}, ...facts } });
    expect(first).toMatchObject(facts);
    const g = groupAlert([first, timedOut('a-2', 11), timedOut('a-3', 11)], NOW, LINKS);
    for (const key of ALERT_PROGRESS_KEYS) expect(g[key]).toBeUndefined();
    expect(g.etaMs).toBeUndefined();
  });
});

describe('silences', () => {
  const run = (runId: string, jobName?: string, maintenance?: boolean) =>
    record({ runId, state: 'FAILED', meta: { jobName, ...(maintenance ? { maintenance } : {}) } });
  it.each<[string, Silence[], RunRecord, string | undefined]>([
    ['all', [silence({})], run('a'), 'silence s-00000001'],
    ['its run', [silence({ scope: { kind: 'run', runId: 'a' } })], run('a'), 'silence s-00000001'],
    ['another run', [silence({ scope: { kind: 'run', runId: 'b' } })], run('a'), undefined],
    ['its job', [silence({ scope: { kind: 'job', jobName: 'j' } })], run('a', 'j'), 'silence s-00000001'],
    ['another job', [silence({ scope: { kind: 'job', jobName: 'j' } })], run('a', 'k'), undefined],
    ['ended', [silence({ endsAt: NOW })], run('a'), undefined],
    ['not started', [silence({ createdAt: NOW + M })], run('a'), undefined],
    ['maintenance flag', [], run('a', undefined, true), 'maintenance'],
  ])('%s', (_name, silences, r, held) => {
    expect(heldBy(r, silences, NOW)).toBe(held);
  });

  it('summarises only the runs in scope still unhealthy and not held by another silence', () => {
    const s = silence({ scope: { kind: 'job', jobName: 'j' }, endsAt: NOW - M });
    const other = silence({ id: 's-00000002', scope: { kind: 'run', runId: 'c' } });
    const recs = [
      record({ runId: 'b', state: 'TIMED_OUT', meta: { jobName: 'j' } }),
      record({ runId: 'a', state: 'FAILED', meta: { jobName: 'j' } }),
      record({ runId: 'ok', state: 'RUNNING', meta: { jobName: 'j' } }),
      record({ runId: 'c', state: 'FAILED', meta: { jobName: 'j' } }),
      record({ runId: 'x', state: 'FAILED', meta: { jobName: 'k' } }),
    ];
    const left = stillUnhealthy(s, recs, [s, other], (r) => UNHEALTHY.has(r.state), NOW);
    expect(left.map((r) => r.runId)).toEqual(['a', 'b']);
    const alert = summaryAlert(s, left, NOW, LINKS);
    expect(alert).toMatchObject({ id: 'silence:s-00000001:summary', kind: 'summary', state: 'FAILED' });
    expect(alert.reason).toBe(
      'Silence s-00000001 on job:j ("drain", by ana) ended: 2 runs still unhealthy: a (FAILED), b (TIMED_OUT)',
    );
  });

  it.each<[string, { run?: string; job?: string; all?: boolean }, string]>([
    ['none', {}, 'exactly one'],
    ['two', { job: 'x', all: true }, 'exactly one'],
    ['bad run id', { run: '../etc' }, 'run'],
  ])('refuses a silence scope: %s', (_name, flags, message) => {
    expect(() => scopeFrom(flags)).toThrow(message);
  });
});

describe('acknowledgements', () => {
  const failed = record({ runId: 'a', state: 'FAILED', reason: 'boom', since: NOW - M, version: 4 });
  it('holds until the next transition moves `since`', () => {
    const { ack, alert } = acknowledge(failed, 'ana', 'on it', NOW, LINKS);
    const acked = { ...failed, ack };
    expect(currentAck(acked)?.by).toBe('ana');
    expect(currentAck({ ...acked, state: 'RUNNING', since: NOW + M })).toBeUndefined();
    expect(alert).toMatchObject({
      id: 'a:5:acknowledgement',
      kind: 'acknowledgement',
      reason: 'on it',
      acknowledgedBy: 'ana',
    });
  });

  it.each<[string, RunRecord | undefined, string | undefined]>([
    ['unknown run', undefined, 'no run a is known yet'],
    ['healthy run', { ...failed, state: 'RUNNING' }, 'run a is RUNNING: there is nothing to acknowledge'],
    ['unhealthy run', failed, undefined],
  ])('%s', (_name, r, problem) => {
    expect(ackProblem(r, 'a')).toBe(problem);
  });
});

describe('routing', () => {
  const stores = { silences: {} as Oncall['silences'], groups: {} as Oncall['groups'] };
  const channels = ['slack', 'sns', 'pagerduty', 'events'];
  const failed = record({ runId: 'a', state: 'FAILED', reason: 'x' });

  it.each<[string, Oncall | undefined, Alert, string[], string[], boolean]>([
    ['no on-call', undefined, alertOf('a', 'FAILED', 'x'), channels, [], false],
    [
      'silenced failure: EventBridge only',
      { ...stores, groupMin: 3, loaded: [silence({})] },
      alertOf('a', 'FAILED', 'x'),
      ['events'],
      [],
      true,
    ],
    [
      'silenced recovery still resolves PagerDuty',
      { ...stores, groupMin: 3, loaded: [silence({})] },
      alertOf('a', 'RUNNING', 'back'),
      ['pagerduty', 'events'],
      [],
      true,
    ],
    [
      'in a sweep: Slack and SNS wait for grouping',
      { ...stores, groupMin: 3, loaded: [], collector: [] },
      alertOf('a', 'FAILED', 'x'),
      channels,
      ['slack', 'sns'],
      false,
    ],
    [
      'outside a sweep (sentinel): nothing waits',
      { ...stores, groupMin: 3, loaded: [] },
      alertOf('a', 'FAILED', 'x'),
      channels,
      [],
      false,
    ],
  ])('%s', async (_name, oncall, alert, want, deferred, silenced) => {
    const r = await routeTransition(oncall, failed, alert, channels, NOW);
    expect(r.channels).toEqual(want);
    expect(r.deferred).toEqual(deferred);
    expect(r.alert.silenced === true).toBe(silenced);
  });

  it('keeps deferred channels pending under the lease the transition wrote', () => {
    const collector: never[] = [];
    const oncall: Oncall = { ...stores, groupMin: 3, collector };
    const written = openEntry(alertOf('a', 'FAILED', 'x'), channels, NOW);
    const kept = holdForGroup(oncall, 'a', written, { ...written, pending: ['pagerduty'], attempts: 1 }, [
      'slack',
      'sns',
    ]);
    expect(kept).toMatchObject({
      pending: ['pagerduty', 'slack', 'sns'],
      leaseUntil: written.leaseUntil,
      attempts: 1,
    });
    expect(collector).toHaveLength(1);
    expect(holdForGroup(oncall, 'a', written, null, ['slack'])!.pending).toEqual(['slack']);
  });

  it('holds reminders while acknowledged or silenced', async () => {
    const { ack } = acknowledge(failed, 'ana', undefined, NOW, LINKS);
    expect(await remindersHeld(undefined, { ...failed, ack }, NOW)).toBe(true);
    expect(await remindersHeld(undefined, failed, NOW)).toBe(false);
    expect(await remindersHeld({ ...stores, groupMin: 3, loaded: [silence({})] }, failed, NOW)).toBe(true);
  });
});

describe('PagerDuty events', () => {
  it.each<[RunState, string | null, string]>([
    ['FAILED', 'oom', 'critical'],
    ['FAILED', 'nccl', 'error'],
    ['FAILED', 'cancelled_preempted', 'warning'],
    ['FAILED', null, 'critical'],
    ['TIMED_OUT', null, 'critical'],
    ['STALLED', null, 'error'],
    ['WARNING', null, 'warning'],
  ])('severity of %s (%s) is %s', (state, errorType, severity) => {
    expect(pagerDutySeverity(state, errorType)).toBe(severity);
  });

  it.each<[string, Alert, [string, string][]]>([
    ['unhealthy transition triggers', alertOf('a', 'FAILED', 'x'), [['trigger', 'trainwatch/a/attempt-1']]],
    ['recovery resolves', alertOf('a', 'RUNNING', 'back'), [['resolve', 'trainwatch/a/attempt-1']]],
    [
      'a restarted attempt resolves the old incident too',
      { ...alertOf('a', 'RUNNING', 'back', { attempt: 2 }), previousState: 'RESTARTING' },
      [
        ['resolve', 'trainwatch/a/attempt-2'],
        ['resolve', 'trainwatch/a/attempt-1'],
      ],
    ],
    ['success resolves', alertOf('a', 'SUCCEEDED', 'done'), [['resolve', 'trainwatch/a/attempt-1']]],
    ['reminder: no second incident', { ...alertOf('a', 'FAILED', 'x'), kind: 'reminder' }, []],
    ['diagnosis follow-up: none', { ...alertOf('a', 'FAILED', 'x'), kind: 'remediation' }, []],
    ['grouped alert: none (one incident per run)', { ...alertOf('a', 'FAILED', 'x'), kind: 'group' }, []],
    [
      'ack acknowledges',
      { ...alertOf('a', 'FAILED', 'x'), kind: 'acknowledgement' },
      [['acknowledge', 'trainwatch/a/attempt-1']],
    ],
  ])('%s', (_name, alert, want) => {
    expect(pagerDutyEvents(alert, 'k'.repeat(32)).map((e) => [e.event_action, e.dedup_key])).toEqual(want);
  });

  it('builds a v2 trigger with summary, severity, source and custom details', () => {
    const alert = alertOf('a', 'FAILED', 'RuntimeError: NCCL error', {
      errorType: 'nccl',
      meta: { instanceId: 'i-0abc', jobName: 'llama' },
    });
    const [e] = pagerDutyEvents(alert, 'k'.repeat(32));
    expect(e).toMatchObject({
      routing_key: 'k'.repeat(32),
      event_action: 'trigger',
      dedup_key: 'trainwatch/a/attempt-1',
      payload: {
        summary: '[trainwatch] a FAILED: RuntimeError: NCCL error',
        severity: 'error',
        source: 'i-0abc',
        component: 'llama',
        class: 'nccl',
        custom_details: expect.objectContaining({ alert_id: alert.id, 'Error type': 'nccl' }),
      },
    });
  });

  it.each([
    [400, true],
    [401, true],
    [404, true],
    [408, false],
    [429, false],
    [500, false],
    [503, false],
  ])('HTTP %i is permanent: %s', (status, permanent) => {
    expect(pagerDutyError(status, '').permanent).toBe(permanent);
  });
});

describe('on-call messages', () => {
  const timedOut = (id: string) => alertOf(id, 'TIMED_OUT', 'no heartbeat for 11m');
  const group = groupAlert(['a-1', 'a-2', 'a-3'].map(timedOut), NOW, LINKS);

  it('renders a grouped alert on Slack with the runs listed, prefix links and no single run facts', () => {
    const { text, blocks } = slackMessage(group);
    expect(text).toBe(`:alarm_clock: 3 runs TIMED_OUT in one sweep: ${group.reason}`);
    const json = JSON.stringify(blocks);
    expect(json).toContain('• a-1 — TIMED_OUT: no heartbeat for 11m\\n• a-2');
    expect(json).not.toContain('"fields"');
    expect(group.s3Uri).toBe('s3://b/training-runs/');
  });

  it('renders a grouped alert and a silence summary for SNS', () => {
    expect(snsMessage(group).subject).toBe('[trainwatch] 3 runs TIMED_OUT in one sweep');
    expect(snsMessage(group).body).toContain('Runs:\n- a-1 — TIMED_OUT: no heartbeat for 11m');
    const s = silence({ endsAt: NOW - M, removedAt: NOW - M, removedBy: 'bo' });
    const summary = summaryAlert(s, [record({ runId: 'x', state: 'FAILED', reason: 'boom' })], NOW, LINKS);
    expect(snsMessage(summary).subject).toBe('[trainwatch] Silence s-00000001 over: 1 still unhealthy');
    expect(summary.reason).toContain('was removed by bo: 1 run still unhealthy: x (FAILED)');
  });

  it('renders an acknowledgement with who and the note', () => {
    const { alert } = acknowledge(
      record({ runId: 'r', state: 'STALLED', reason: 'x' }),
      'ana',
      'on it',
      NOW,
      LINKS,
    );
    expect(slackMessage(alert).text).toBe(':snail: r (STALLED) acknowledged by ana: on it');
    expect(snsMessage(alert).subject).toBe('[trainwatch] r (STALLED) acknowledged by ana');
  });
});
