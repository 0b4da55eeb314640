import { afterEach, describe, expect, it } from 'vitest';
import { ackRun } from '../../bin/commands/ack.js';
import { addSilence } from '../../bin/commands/silence.js';
import { runSweep } from '../../lambdas/handlers/sweep.js';
import { type PagerDutyReceiver, startPagerDutyReceiver } from '../../local/pagerDutyReceiver.js';
import { metadata, progress, type TestEnvironment, testEnvironment } from '../support/environment.js';

const MIN = 60_000;
const KEY = 'R0UT1NGKEY0123456789abcdefABCDEF';
let t: TestEnvironment;
let pd: PagerDutyReceiver;

async function setup(overrides: Record<string, string> = {}) {
  pd = await startPagerDutyReceiver();
  t = await testEnvironment({
    TRAINWATCH_PAGERDUTY_ROUTING_KEY: KEY,
    TRAINWATCH_PAGERDUTY_URL: pd.url,
    ...overrides,
  });
}
afterEach(async () => {
  await t.close();
  await pd.close();
});

type SlackMsg = { text: string };
const texts = () => (t.slack.received as SlackMsg[]).map((m) => m.text);
const byAction = (a: string) => pd.received.filter((e) => e.event_action === a);

/** Runs `ids` that beat at `now` and then stop: a sweep 11 minutes later times them all out. */
async function quietRuns(ids: string[], job = 'sweep-7') {
  for (const id of ids) {
    await t.put(id, 'metadata', metadata(id, { job_name: job }));
    await t.put(id, 'progress', progress(100));
  }
}

describe('grouping', () => {
  it('sends one grouped Slack and SNS alert for five runs timing out in one sweep, each run alone on EventBridge and PagerDuty', async () => {
    await setup();
    const ids = ['g-1', 'g-2', 'g-3', 'g-4', 'g-5'];
    await quietRuns(ids);
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now);
    const report = await runSweep(app, now + 11 * MIN);
    expect(report.transitions).toHaveLength(5);
    expect(report.oncall).toEqual({ groups: 1, grouped: 5, summaries: 0 });

    expect(texts()).toEqual([expect.stringMatching(/5 runs TIMED_OUT in one sweep/)]);
    const blocks = JSON.stringify(t.slack.received[0]);
    for (const id of ids) expect(blocks).toContain(id);
    expect(blocks).toContain('a shared cause is likely: bucket permissions, the region, the cluster');
    const sns = await t.snsMessages();
    expect(sns).toHaveLength(1);
    expect(sns[0]!.Subject).toBe('[trainwatch] 5 runs TIMED_OUT in one sweep');
    const events = await t.events();
    expect(events.map((e) => e.detail.runId).sort()).toEqual(ids);
    expect(events.every((e) => e.detail.kind === 'transition')).toBe(true);
    expect(
      byAction('trigger')
        .map((e) => e.dedup_key)
        .sort(),
    ).toEqual(ids.map((i) => `trainwatch/${i}/attempt-1`));
    // Nothing is left pending: the members' entries were stripped and the group delivered.
    for (const id of ids) expect((await app.states.get(id))!.outbox ?? {}).toEqual({});

    await runSweep(app, now + 13 * MIN);
    expect(t.slack.received).toHaveLength(1);
    expect(await t.snsMessages()).toHaveLength(1);
  });

  it('below TRAINWATCH_GROUP_MIN, alerts each run alone', async () => {
    await setup({ TRAINWATCH_GROUP_MIN: '3' });
    await quietRuns(['h-1', 'h-2']);
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now);
    const report = await runSweep(app, now + 11 * MIN);
    expect(report.oncall).toEqual({ groups: 0, grouped: 0, summaries: 0 });
    expect(texts().sort()).toEqual([
      expect.stringMatching(/^:alarm_clock: h-1 — TIMED_OUT/),
      expect.stringMatching(/^:alarm_clock: h-2 — TIMED_OUT/),
    ]);
  });

  it('two racing sweeps never send a grouped alert twice nor a run both grouped and alone', async () => {
    await setup();
    const ids = Array.from({ length: 12 }, (_, i) => `r-${String(i).padStart(2, '0')}`);
    await quietRuns(ids);
    const now = Date.now();
    await runSweep(t.app(), now);
    // Two Lambda containers: separate clients, same table, the same minute.
    const [a, b] = await Promise.all([runSweep(t.app(), now + 11 * MIN), runSweep(t.app(), now + 11 * MIN)]);
    expect([...a.transitions, ...b.transitions].map((x) => x.runId).sort()).toEqual(ids);

    // Every run reaches Slack exactly once: inside one grouped alert or alone, never both.
    const seen = new Map<string, number>();
    for (const m of t.slack.received) {
      const runs: string[] = JSON.stringify(m).match(/r-\d\d/g) ?? [];
      for (const id of new Set(runs)) seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    expect([...seen.keys()].sort()).toEqual(ids);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    const groups = texts().filter((x) => /runs TIMED_OUT in one sweep/.test(x));
    expect(groups.length).toBeGreaterThanOrEqual(1);
    expect(new Set(groups).size).toBe(groups.length);
    expect(await t.snsMessages()).toHaveLength(t.slack.received.length);
    // EventBridge and PagerDuty: one per run, whichever sweep won it.
    expect((await t.events()).map((e) => e.detail.runId).sort()).toEqual(ids);
    expect(new Set(byAction('trigger').map((e) => e.dedup_key)).size).toBe(12);
    expect(byAction('trigger')).toHaveLength(12);

    // A later sweep, after every lease ran out, finds nothing left to send.
    const sent = t.slack.received.length;
    await runSweep(t.app(), now + 20 * MIN);
    expect(t.slack.received).toHaveLength(sent);
    expect(byAction('trigger')).toHaveLength(12);
  });
});

describe('silences', () => {
  it('holds people channels while silenced and sends one summary when the silence expires between two sweeps', async () => {
    await setup();
    await t.put('s-fail', 'metadata', metadata('s-fail', { job_name: 'drain' }));
    await t.put('s-fail', 'error', 'RuntimeError: NCCL error: unhandled system error');
    await t.put('s-ok', 'metadata', metadata('s-ok', { job_name: 'drain' }));
    await t.put('other', 'metadata', metadata('other', { job_name: 'elsewhere' }));
    await t.put('other', 'error', 'RuntimeError: boom');
    const app = t.app();
    const now = Date.now();
    const s = await addSilence(
      app,
      { kind: 'job', jobName: 'drain' },
      5 * MIN,
      'cluster drain',
      'ana',
      now - MIN,
    );

    await runSweep(app, now);
    // The silenced run is recorded and on EventBridge (marked), but not on Slack, SNS or PagerDuty.
    expect((await app.states.get('s-fail'))!.state).toBe('FAILED');
    expect((await app.states.history('s-fail')).map((f) => f.to)).toEqual(['FAILED']);
    const events = await t.events();
    const silenced = events.find((e) => e.detail.runId === 's-fail');
    expect(silenced!.detail).toMatchObject({ state: 'FAILED', silenced: true });
    expect(texts()).toEqual([expect.stringMatching(/^:x: other — FAILED/)]);
    expect((await t.snsMessages()).map((m) => m.MessageAttributes.run_id!.Value)).toEqual(['other']);
    expect(byAction('trigger').map((e) => e.dedup_key)).toEqual(['trainwatch/other/attempt-1']);

    // The silence ends at now+4m; two sweeps race at now+6m: exactly one summary.
    await Promise.all([runSweep(t.app(), now + 6 * MIN), runSweep(t.app(), now + 6 * MIN)]);
    const summaries = texts().filter((x) => x.includes('Silence'));
    expect(summaries).toEqual([expect.stringMatching(new RegExp(`Silence ${s.id} over: 1 still unhealthy`))]);
    const body = JSON.stringify(t.slack.received.at(-1));
    expect(body).toContain('s-fail');
    expect(body).not.toContain('s-ok');
    expect(body).toContain('cluster drain');
    const pdSummary = byAction('trigger').filter((e) => e.dedup_key === `trainwatch/silence:${s.id}:summary`);
    expect(pdSummary).toHaveLength(1);
    expect((await app.silences.list()).find((x) => x.id === s.id)!.summary!.pending).toEqual([]);

    await runSweep(app, now + 8 * MIN);
    expect(texts().filter((x) => x.includes('Silence'))).toHaveLength(1);
  });

  it('sends nothing at the end of a silence when every run recovered, and unsilence ends it at once', async () => {
    await setup();
    await quietRuns(['q-1']);
    const app = t.app();
    const now = Date.now();
    const s = await addSilence(app, { kind: 'run', runId: 'q-1' }, 60 * MIN, 'reboot', 'bo', now);
    await runSweep(app, now);
    await runSweep(app, now + 11 * MIN);
    expect((await app.states.get('q-1'))!.state).toBe('TIMED_OUT');
    expect(t.slack.received).toHaveLength(0);
    await t.put('q-1', 'metadata', metadata('q-1'));
    const back = Date.now() + 1000;
    await runSweep(app, back);
    expect((await app.states.get('q-1'))!.state).toBe('RUNNING');
    expect(await app.silences.endSilence(s.id, 'bo', back + 1000)).toBe(true);
    expect(await app.silences.endSilence(s.id, 'bo', back + 1000)).toBe(false);
    const r = await runSweep(app, back + 2000);
    expect(r.oncall!.summaries).toBe(0);
    expect(t.slack.received).toHaveLength(0);
    expect(await t.snsMessages()).toHaveLength(0);
  });

  it('treats "maintenance": true in metadata.json like a silence while it is set', async () => {
    await setup();
    await t.put('m-1', 'metadata', metadata('m-1', { maintenance: true }));
    await t.put('m-1', 'error', 'RuntimeError: boom');
    await runSweep(t.app(), Date.now());
    expect((await t.app().states.get('m-1'))!.state).toBe('FAILED');
    expect(t.slack.received).toHaveLength(0);
    expect(pd.received).toHaveLength(0);
    expect((await t.events())[0]!.detail).toMatchObject({ runId: 'm-1', silenced: true });
  });
});

describe('acknowledgements and PagerDuty', () => {
  it('an ack during reminders stops them, is announced once, acknowledges the incident; recovery resolves it', async () => {
    await setup({ TRAINWATCH_REMIND_EVERY: '5m' });
    await quietRuns(['ack-1'], 'llama');
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now);
    await runSweep(app, now + 11 * MIN);
    await runSweep(app, now + 17 * MIN);
    expect(texts()).toEqual([
      expect.stringMatching(/^:alarm_clock: ack-1 — TIMED_OUT:/),
      expect.stringMatching(/^:alarm_clock: ack-1 — TIMED_OUT \(reminder\)/),
    ]);

    expect(await ackRun(app, 'ack-1', 'ana', 'looking at the node', now + 18 * MIN)).toMatch(
      /acknowledged ack-1/,
    );
    await expect(ackRun(app, 'ack-1', 'bo', undefined, now + 18 * MIN)).rejects.toThrow(
      /already acknowledged by ana/,
    );
    await runSweep(app, now + 19 * MIN);
    await runSweep(app, now + 25 * MIN);
    await runSweep(app, now + 31 * MIN);
    expect(texts()).toHaveLength(3);
    expect(texts()[2]).toMatch(/ack-1 \(TIMED_OUT\) acknowledged by ana/);
    expect((await t.snsMessages()).map((m) => m.Subject)).toEqual([
      expect.stringMatching(/ack-1 TIMED_OUT/),
      expect.stringMatching(/ack-1 still TIMED_OUT/),
      '[trainwatch] ack-1 (TIMED_OUT) acknowledged by ana',
    ]);
    const history = await app.states.history('ack-1');
    expect(history.map((f) => f.reason)).toContain('acknowledged by ana: looking at the node');
    const rec = (await app.states.get('ack-1'))!;
    expect(rec.ack).toMatchObject({ by: 'ana', note: 'looking at the node' });

    // Heartbeats resume: the next transition ends the ack and resolves the incident.
    await t.put('ack-1', 'metadata', metadata('ack-1', { job_name: 'llama' }));
    await runSweep(app, Date.now() + 1000);
    expect((await app.states.get('ack-1'))!.state).toBe('RUNNING');

    expect(pd.received.map((e) => [e.event_action, e.dedup_key])).toEqual([
      ['trigger', 'trainwatch/ack-1/attempt-1'],
      ['acknowledge', 'trainwatch/ack-1/attempt-1'],
      ['resolve', 'trainwatch/ack-1/attempt-1'],
    ]);
    const trigger = pd.received[0]!;
    expect(trigger.routing_key).toBe(KEY);
    expect(trigger.payload).toMatchObject({
      summary: expect.stringMatching(/^\[trainwatch\] ack-1 TIMED_OUT: no heartbeat for 11m/),
      severity: 'critical',
      source: 'i-0123456789abcdef0',
      component: 'llama',
      custom_details: expect.objectContaining({ run_id: 'ack-1', state: 'TIMED_OUT', Job: 'llama' }),
    });
    expect(trigger.links).toEqual([
      expect.objectContaining({ href: expect.stringContaining('s3.console.aws.amazon.com') }),
    ]);
    for (const e of pd.received.slice(1))
      expect(Object.keys(e).sort()).toEqual(['dedup_key', 'event_action', 'routing_key']);
  });

  it('retries PagerDuty after 429 and gives up on 400 without retrying', async () => {
    await setup({ TRAINWATCH_GROUP_MIN: '0' });
    pd.failNext(429, 1);
    await t.put('p-1', 'metadata', metadata('p-1'));
    await t.put('p-1', 'error', 'RuntimeError: boom');
    const app = t.app();
    await runSweep(app, Date.now());
    expect(byAction('trigger')).toHaveLength(2);
    expect((await app.states.get('p-1'))!.undelivered ?? []).toEqual([]);

    pd.failNext(400, 1);
    await t.put('p-2', 'metadata', metadata('p-2'));
    await t.put('p-2', 'error', 'RuntimeError: boom');
    await runSweep(app, Date.now());
    await runSweep(app, Date.now() + 10 * MIN);
    const r = (await app.states.get('p-2'))!;
    expect(r.undelivered).toEqual([
      expect.objectContaining({ channel: 'pagerduty', error: expect.stringMatching(/HTTP 400/) }),
    ]);
    expect(byAction('trigger').filter((e) => e.dedup_key === 'trainwatch/p-2/attempt-1')).toHaveLength(1);
  });
});
