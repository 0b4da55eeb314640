import { afterEach, describe, expect, it } from 'vitest';
import { ackRun } from '../../bin/commands/ack.js';
import { addSilence } from '../../bin/commands/silence.js';
import { runSweep } from '../../lambdas/handlers/sweep.js';
import { requestRestart } from '../../lambdas/operations/index.js';
import { onCallOf } from '../../lambdas/wiring/onCall.js';
import { metadata, type TestEnvironment, testEnvironment } from '../support/environment.js';

const MIN = 60_000;
let t: TestEnvironment;
afterEach(() => t.close());

describe('on-call operations (one code path for the CLI, Slack and the local mode)', () => {
  it('trainwatch restart puts one restart request on the bus, with who asked; only for a failed, stalled or timed-out run', async () => {
    t = await testEnvironment();
    await t.put('op-1', 'metadata', metadata('op-1'));
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now);
    await expect(requestRestart(onCallOf(app), 'op-1', 'ana', 'cli:1')).rejects.toThrow(
      /op-1 is RUNNING: only a FAILED, TIMED_OUT or STALLED run is restarted/,
    );
    await runSweep(app, now + 11 * MIN);
    await requestRestart(onCallOf(app), 'op-1', 'ana', 'cli:2');
    const requests = (await t.events()).filter((e) => e['detail-type'] === 'Training Run Restart Requested');
    expect(requests.map((e) => e.detail)).toEqual([
      { runId: 'op-1', state: 'TIMED_OUT', id: 'cli:2', requestedBy: 'ana' },
    ]);
    // A button from before the run moved on: the operation says so and does nothing.
    await expect(
      requestRestart(onCallOf(app), 'op-1', 'ana', 'cli:3', { state: 'STALLED', since: 1 }),
    ).rejects.toThrow(/op-1 moved on: it is TIMED_OUT now/);
  });

  it('silence --until-resolved covers one run until it is healthy again; ack is the same operation as the button', async () => {
    t = await testEnvironment({ TRAINWATCH_REMIND_EVERY: '5m' });
    await t.put('op-2', 'metadata', metadata('op-2', { job_name: 'llama' }));
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now);
    await expect(
      addSilence(app, { kind: 'job', jobName: 'llama' }, 'resolved', 'x', 'ana', now),
    ).rejects.toThrow(/a silence until resolved covers one run/);
    const s = await addSilence(app, { kind: 'run', runId: 'op-2' }, 'resolved', 'on it', 'ana', now);
    expect(s).toMatchObject({ untilResolved: true, endsAt: now + 14 * 86_400_000 });
    await runSweep(app, now + 11 * MIN);
    expect(t.slack.received).toEqual([]); // TIMED_OUT, held
    expect(await ackRun(app, 'op-2', 'ana', undefined, now + 12 * MIN)).toMatch(
      /acknowledged op-2 \(TIMED_OUT\)/,
    );
    // It beats again: the recovery is not held, and the silence ends.
    await t.put('op-2', 'metadata', metadata('op-2', { job_name: 'llama' }));
    await runSweep(app, Date.now() + 1000);
    expect((t.slack.received as { text: string }[]).map((m) => m.text)).toContainEqual(
      expect.stringMatching(/op-2 — RUNNING/),
    );
    const [ended] = await app.silences.list();
    expect(ended).toMatchObject({ id: s.id, removedBy: 'trainwatch (resolved)' });
  });
});
