// Run items the version before `facts` stored: the attempt's facts flat on the item. An upgrade must keep
// working on them with no migration step: no fact lost, nothing read again, nothing alerted again.
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endedKey, liveKey } from '../../lambdas/adapters/stores/dynamoStateStore.js';
import { runSweep } from '../../lambdas/handlers/sweep.js';
import { metadata, progress, type TestEnvironment, testEnvironment } from '../support/environment.js';

const MIN = 60_000;
let t: TestEnvironment;
beforeEach(async () => {
  t = await testEnvironment({ TRAINWATCH_STALL_AFTER: '30m' });
});
afterEach(() => t.close());

/** The flat facts of a run stuck at step 7 for two hours, as the previous version wrote them. */
function flatFacts(etags: Record<string, string>, now: number): Record<string, unknown> {
  return {
    etags,
    step: 7,
    totalSteps: 1000,
    loss: 1.5,
    learningRate: 3e-4,
    lastLogLine: 'step 7 loss=1.5',
    stepAdvancedAt: now - 120 * MIN,
    progressCheckedAt: now - 2 * MIN,
    firstStep: 1,
    firstStepAt: now - 180 * MIN,
    nodesExpected: 1,
  };
}

describe('run items with flat facts (stored before `facts`)', () => {
  it('a stalled live run keeps its step, ETags and facts: no read again, no transition, no second alert', async () => {
    const app = t.app();
    await t.put('legacy', 'metadata', metadata('legacy'));
    await t.put('legacy', 'progress', progress(7));
    const listed = (await app.runs.listRun('legacy'))!;
    const etags = { metadata: listed.files.metadata!.etag, progress: listed.files.progress!.etag };
    const now = Date.now();
    await app.clients.ddb.send(
      new PutCommand({
        TableName: app.config.table,
        Item: {
          ...liveKey('legacy'),
          runId: 'legacy',
          state: 'STALLED',
          reason: 'step 7 has not advanced for 2h',
          attempt: 1,
          version: 5,
          since: now - 90 * MIN,
          updatedAt: now - MIN,
          firstSeenAt: now - 180 * MIN,
          lastAlertAt: now - 90 * MIN,
          meta: { phase: 'training', instanceId: 'i-0123456789abcdef0' },
          ...flatFacts(etags, now),
          locks: {},
        },
      }),
    );

    const r = (await app.states.get('legacy'))!;
    expect(r.facts).toEqual(flatFacts(etags, now));
    expect(r).not.toHaveProperty('step');
    expect(r).not.toHaveProperty('etags');
    expect((await app.states.loadLive()).get('legacy')?.facts).toEqual(flatFacts(etags, now));

    // Forgetting the ETags would re-read progress.json and judge the stall from its fresh LastModified (RUNNING).
    const sweep = await runSweep(app, now);
    expect(sweep.transitions).toEqual([]);
    expect(t.slack.received).toHaveLength(0);
    expect(await t.snsMessages()).toHaveLength(0);
    const after = (await app.states.get('legacy'))!;
    expect(after.state).toBe('STALLED');
    expect(after.facts).toMatchObject({
      step: 7,
      stepAdvancedAt: now - 120 * MIN,
      etags,
      learningRate: 3e-4,
    });

    // Its next write stores the facts in their slice, and no flat field is left.
    expect(await app.states.update({ ...after, version: after.version + 1 }, after.version)).toBe(true);
    const raw = await app.clients.ddb.send(
      new GetCommand({ TableName: app.config.table, Key: liveKey('legacy') }),
    );
    expect(raw.Item!.facts).toMatchObject({ step: 7, etags, learningRate: 3e-4 });
    expect(Object.keys(raw.Item!).filter((k) => k in flatFacts(etags, now))).toEqual([]);
  });

  it('an ended run read back by id has its facts lifted too', async () => {
    const app = t.app();
    const now = Date.now();
    await app.clients.ddb.send(
      new PutCommand({
        TableName: app.config.table,
        Item: {
          ...endedKey('gone'),
          runId: 'gone',
          state: 'SUCCEEDED',
          reason: '_complete written',
          attempt: 1,
          version: 9,
          since: now - 120 * MIN,
          updatedAt: now - 60 * MIN,
          firstSeenAt: now - 600 * MIN,
          ended: { at: now - 60 * MIN, folder: 'ended/gone/x/', files: 3 },
          ...flatFacts({ metadata: '"m"' }, now),
          locks: {},
        },
      }),
    );
    expect((await app.states.get('gone'))?.facts).toEqual(flatFacts({ metadata: '"m"' }, now));
    expect((await app.states.find(['gone'])).get('gone')?.facts.step).toBe(7);
  });
});
