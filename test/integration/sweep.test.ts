import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSweep } from '../../lambdas/handlers/sweep.js';
import { metadata, progress, type TestEnvironment, testEnvironment } from '../support/environment.js';

const MIN = 60_000;
let t: TestEnvironment;

beforeEach(async () => {
  t = await testEnvironment();
});
afterEach(() => t.close());

describe('sweep against the emulator', () => {
  it('keeps a healthy run RUNNING and, once known, checks it with one LIST and no write', async () => {
    await t.put('healthy', 'metadata', metadata('healthy'));
    await t.put('healthy', 'progress', progress(10));
    const app = t.app();
    const first = await runSweep(app, Date.now());
    expect(first.byState.RUNNING).toBe(1);
    expect(first.transitions).toEqual([{ runId: 'healthy', from: undefined, to: 'RUNNING' }]);

    const second = await runSweep(app, Date.now() + 1000);
    expect(second.byState.RUNNING).toBe(1);
    expect(second.writes).toBe(0);
    // One LIST, one Query per live partition (4) and one of the silences (on-call lifecycle): none per run.
    expect(second.requests).toEqual({ S3: 1, DynamoDB: 5 });
    expect(t.slack.received).toHaveLength(0);
  });

  it('times out a run whose heartbeats stop and alerts Slack, SNS and EventBridge exactly once', async () => {
    await t.put('quiet', 'metadata', metadata('quiet', { job_name: 'llama' }));
    await t.put('quiet', 'progress', progress(420));
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now);
    const late = await runSweep(app, now + 11 * MIN);
    expect(late.transitions).toEqual([{ runId: 'quiet', from: 'RUNNING', to: 'TIMED_OUT' }]);
    await runSweep(app, now + 12 * MIN);

    expect(t.slack.received).toHaveLength(1);
    const sns = await t.snsMessages();
    expect(sns).toHaveLength(1);
    expect(sns[0]!.Subject).toMatch(/^\[trainwatch\] quiet TIMED_OUT/);
    expect(sns[0]!.MessageAttributes.state!.Value).toBe('TIMED_OUT');
    expect(sns[0]!.MessageAttributes.run_id!.Value).toBe('quiet');
    expect(sns[0]!.Message).toContain('no heartbeat for 11m');
    const events = await t.events();
    expect(events).toHaveLength(1);
    expect(events[0]!['detail-type']).toBe('Training Run State Change');
    expect(events[0]!.detail).toMatchObject({
      runId: 'quiet',
      state: 'TIMED_OUT',
      kind: 'transition',
      step: 420,
    });
  });

  it('alerts exactly once per transition when two sweeps race', async () => {
    // Per-run alerts are what this test checks: grouping (test/integration/oncall.test.ts) is off.
    await t.close();
    t = await testEnvironment({ TRAINWATCH_GROUP_MIN: '0' });
    const ids = Array.from({ length: 12 }, (_, i) => `race-${i}`);
    for (const id of ids) {
      await t.put(id, 'metadata', metadata(id));
      await t.put(
        id,
        'error',
        'RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1275, unhandled system error',
      );
    }
    const now = Date.now();
    // Two Lambda containers: separate clients, same table.
    const [a, b] = await Promise.all([runSweep(t.app(), now), runSweep(t.app(), now)]);
    // Each transition is won by exactly one sweep (the other lost the conditional write, or read after it).
    const won = [...a.transitions, ...b.transitions].map((x) => x.runId).sort();
    expect(won).toEqual([...ids].sort());
    expect(t.slack.received).toHaveLength(ids.length);
    expect(await t.snsMessages()).toHaveLength(ids.length);
    const runIds = (t.slack.received as { text: string }[]).map((m) => /race-\d+/.exec(m.text)![0]).sort();
    expect(runIds).toEqual([...ids].sort());
  });

  it('reports a malformed run as a finding and still sweeps the healthy ones', async () => {
    // Three invalid heartbeats in one sweep would be grouped; this test counts per-run alerts.
    await t.close();
    t = await testEnvironment({ TRAINWATCH_GROUP_MIN: '0' });
    await t.put('ok-1', 'metadata', metadata('ok-1'));
    await t.put('bad-json', 'metadata', '{"status": "running", ');
    await t.put('bad-types', 'metadata', metadata('bad-types'));
    await t.put('bad-types', 'progress', JSON.stringify({ step: 'twelve' }));
    await t.put('bad-bytes', 'progress', new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]));
    await t.put('ok-2', 'metadata', metadata('ok-2'));
    const report = await runSweep(t.app(), Date.now());

    expect(report.errors).toEqual([]);
    const states = Object.fromEntries(
      (
        await Promise.all(
          ['ok-1', 'ok-2', 'bad-json', 'bad-types', 'bad-bytes'].map((id) => t.app().states.get(id)),
        )
      ).map((r) => [r!.runId, r!]),
    );
    expect(states['ok-1']!.state).toBe('RUNNING');
    expect(states['ok-2']!.state).toBe('RUNNING');
    expect(states['bad-json']!.state).toBe('WARNING');
    expect(states['bad-json']!.reason).toMatch(/^invalid heartbeat: metadata.json is not valid JSON/);
    expect(states['bad-types']!.reason).toMatch(/progress.json: step: .*number/i);
    expect(states['bad-bytes']!.reason).toBe('invalid heartbeat: progress.json is not valid UTF-8');
    expect(t.slack.received).toHaveLength(3);
  });

  it('classifies _error and keeps the last log line for the alert', async () => {
    await t.put('oom', 'metadata', metadata('oom'));
    await t.put('oom', 'log', 'step 90 loss=1.2\nstep 100 loss=1.1\n');
    await t.put(
      'oom',
      'error',
      'Traceback (most recent call last):\n  File "train.py", line 3\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
    );
    await runSweep(t.app(), Date.now());
    const r = await t.app().states.get('oom');
    expect(r).toMatchObject({
      state: 'FAILED',
      errorType: 'oom',
      facts: { lastLogLine: 'step 100 loss=1.1' },
    });
    expect(r!.reason).toBe('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB');
    const slack = JSON.stringify(t.slack.received[0]);
    expect(slack).toContain('Reduce batch size');
  });

  it('detects a stall while metadata keeps beating', async () => {
    t = await testEnvironment({ TRAINWATCH_STALL_AFTER: '2s', TRAINWATCH_STALE_AFTER: '1h' });
    await t.put('hung', 'metadata', metadata('hung'));
    await t.put('hung', 'progress', progress(77));
    const app = t.app();
    await runSweep(app, Date.now());
    await new Promise((r) => setTimeout(r, 2500));
    await t.put('hung', 'metadata', metadata('hung'));
    const report = await runSweep(app, Date.now());
    expect(report.transitions).toEqual([{ runId: 'hung', from: 'RUNNING', to: 'STALLED' }]);
    expect((await app.states.get('hung'))!.reason).toMatch(/^step 77 has not advanced for \d+s/);
  });

  it('keeps an alert that Slack could not take and sends it on a later sweep', async () => {
    t.slack.failNext(503, 'service_unavailable', 3);
    await t.put('flaky', 'metadata', metadata('flaky'));
    await t.put('flaky', 'error', 'RuntimeError: boom');
    const app = t.app();
    const now = Date.now();
    const first = await runSweep(app, now);
    expect(first.alertsFailed).toBe(1);
    let r = await app.states.get('flaky');
    expect(Object.values(r!.outbox ?? {}).map((e) => e.pending)).toEqual([['slack']]);
    expect(await t.snsMessages()).toHaveLength(1);

    await runSweep(app, now + 5 * MIN);
    r = await app.states.get('flaky');
    expect(r!.outbox ?? {}).toEqual({});
    expect(await t.snsMessages()).toHaveLength(1);
    const delivered = (t.slack.received as { text: string }[]).filter((m) => m.text.includes('flaky'));
    expect(delivered).toHaveLength(4);
  });

  it('records an alert Slack rejects for good, without retrying it', async () => {
    t.slack.failNext(404, 'no_service', 1);
    await t.put('gone', 'metadata', metadata('gone'));
    await t.put('gone', 'error', 'RuntimeError: boom');
    const app = t.app();
    await runSweep(app, Date.now());
    await runSweep(app, Date.now() + 10 * MIN);
    const r = await app.states.get('gone');
    expect(r!.undelivered).toEqual([
      expect.objectContaining({ channel: 'slack', error: expect.stringMatching(/404/) }),
    ]);
    expect(t.slack.received).toHaveLength(1);
  });

  it('recovers a timed-out run when heartbeats resume, with a recovery alert', async () => {
    await t.put('back', 'metadata', metadata('back'));
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now - 20 * MIN + 1000);
    await runSweep(app, now + 11 * MIN);
    await t.put('back', 'metadata', metadata('back'));
    const report = await runSweep(app, Date.now() + 11 * MIN - 1000 * 60 * 10.9);
    expect(report.transitions).toEqual([{ runId: 'back', from: 'TIMED_OUT', to: 'RUNNING' }]);
    expect(t.slack.received).toHaveLength(2);
  });
});
