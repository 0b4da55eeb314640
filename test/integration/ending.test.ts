// Ended runs leave what every sweep reads (issue 24): their files move out of the swept prefix and their
// records out of the live partitions, and everything that needs them still finds them.
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listEnded } from '../../lambdas/adapters/stores/dynamoEndedLog.js';
import { endedKey, liveKey } from '../../lambdas/adapters/stores/dynamoStateStore.js';
import { evaluateSentinels } from '../../lambdas/handlers/sentinel.js';
import { runSweep } from '../../lambdas/handlers/sweep.js';
import type { App } from '../../lambdas/wiring/app.js';
import type { AwsClients } from '../../local/awsClients.js';
import { metadata, progress, type TestEnvironment, testEnvironment } from '../support/environment.js';

const MIN = 60_000;
let t: TestEnvironment;
beforeEach(async () => {
  t = await testEnvironment({ TRAINWATCH_ENDED_AFTER: '10m', TRAINWATCH_STALE_AFTER: '10m' });
});
afterEach(() => t.close());

async function keys(app: App<AwsClients>, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const page = await app.clients.s3.send(
      new ListObjectsV2Command({ Bucket: app.config.bucket, Prefix: prefix, ContinuationToken: token }),
    );
    out.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.NextContinuationToken;
  } while (token);
  return out.sort();
}

async function body(app: App<AwsClients>, key: string): Promise<string> {
  const res = await app.clients.s3.send(new GetObjectCommand({ Bucket: app.config.bucket, Key: key }));
  return res.Body!.transformToString();
}

/** A run that completed: metadata, progress, a node file, a log, an archived attempt, a file of the user's own. */
async function completedRun(id: string): Promise<void> {
  await t.put(id, 'metadata', metadata(id));
  await t.put(id, 'progress', progress(1000, 1000));
  await t.putNode(id, 0, JSON.stringify({ node_rank: 0, step: 1000 }));
  await t.put(id, 'log', 'step 1000 done\n');
  const app = t.app();
  for (const [path, text] of [
    ['attempts/1/_error', 'NCCL timeout'],
    ['eval/results.json', '{"acc": 0.91}'],
  ])
    await app.clients.s3.send(
      new PutObjectCommand({ Bucket: app.config.bucket, Key: `training-runs/${id}/${path}`, Body: text }),
    );
  await t.put(id, 'complete', JSON.stringify({ step: 1000 }));
}

describe('a run that ended', () => {
  it('stays swept through the grace period, then moves every file and leaves the live partitions', async () => {
    await completedRun('done-1');
    const app = t.app();
    const now = Date.now();
    expect((await runSweep(app, now)).transitions).toEqual([{ runId: 'done-1', to: 'SUCCEEDED' }]);
    const before = await keys(app, 'training-runs/done-1/');
    expect(before).toHaveLength(7);

    expect((await runSweep(app, now + 5 * MIN)).ended).toBe(0); // within retention.endedAfter
    const ending = await runSweep(app, now + 11 * MIN);
    expect(ending.ended).toBe(1);
    expect(ending.alertsSent).toBe(0); // ending is no transition: nobody is told

    const r = (await app.states.get('done-1'))!;
    expect(r.state).toBe('SUCCEEDED');
    expect(r.ended).toEqual({
      at: now + 11 * MIN,
      folder: expect.stringMatching(/^trainwatch-ended\/done-1\/\d{4}-\d\d-\d\dT\d{6}\.\d{3}Z\/$/),
      files: 7,
    });
    expect(await keys(app, 'training-runs/done-1/')).toEqual([]);
    const moved = await keys(app, r.ended!.folder);
    expect(moved).toEqual(before.map((k) => k.replace('training-runs/done-1/', r.ended!.folder)));
    expect(await body(app, `${r.ended!.folder}eval/results.json`)).toBe('{"acc": 0.91}');
    expect((await app.states.loadLive()).has('done-1')).toBe(false);
    // The ended item expires with the files (retention.runsDays, 90 by default).
    const item = await app.clients.ddb.send(
      new (await import('@aws-sdk/lib-dynamodb')).GetCommand({
        TableName: app.config.table,
        Key: endedKey('done-1'),
      }),
    );
    expect(item.Item!.expiresAt).toBe(Math.floor((now + 11 * MIN) / 1000) + 90 * 86_400);
    expect((await app.states.history('done-1')).map((f) => f.reason)[0]).toBe(
      `ended: 7 file(s) moved to ${r.ended!.folder}`,
    );
    expect(await listEnded(app.clients.ddb, app.config.table, 10, now + 11 * MIN)).toEqual([
      expect.objectContaining({ runId: 'done-1', state: 'SUCCEEDED', folder: r.ended!.folder }),
    ]);

    // The next sweep reads nothing of it: one LIST page, the live partitions and the silences.
    const after = await runSweep(app, now + 12 * MIN);
    expect(after.runs).toBe(0);
    expect(after.requests).toEqual({ S3: 1, DynamoDB: 5 });
  });

  it('is picked up again within one sweep when a new attempt of the same run id starts', async () => {
    await completedRun('again');
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now);
    await runSweep(app, now + 11 * MIN);
    const folder = (await app.states.get('again'))!.ended!.folder;

    await t.put('again', 'metadata', metadata('again', { attempt: 2 }));
    await t.put('again', 'progress', progress(10, 1000));
    const back = await runSweep(app, Date.now());
    expect(back.transitions).toEqual([{ runId: 'again', from: 'SUCCEEDED', to: 'RUNNING' }]);
    const r = (await app.states.get('again'))!;
    expect(r).toMatchObject({ state: 'RUNNING', facts: { step: 10 }, attempt: 2 });
    expect(r.ended).toBeUndefined();
    expect((await app.states.loadLive()).has('again')).toBe(true);
    // The first attempt's files stay where it ended.
    expect(await keys(app, folder)).toHaveLength(7);
  });

  it('a late _error of a run that ended TIMED_OUT goes through the sentinel: FAILED, classified, alerted once', async () => {
    await t.put('late', 'metadata', metadata('late'));
    await t.put('late', 'progress', progress(5));
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now);
    expect((await runSweep(app, now + 11 * MIN)).transitions).toEqual([
      { runId: 'late', from: 'RUNNING', to: 'TIMED_OUT' },
    ]);
    const slackBefore = t.slack.received.length;
    expect((await runSweep(app, now + 22 * MIN)).ended).toBe(1);

    await t.put('late', 'error', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB');
    const summary = await evaluateSentinels(
      app,
      {
        source: 'aws.s3',
        'detail-type': 'Object Created',
        detail: { bucket: { name: app.config.bucket }, object: { key: 'training-runs/late/_error' } },
      },
      now + 23 * MIN,
    );
    expect(summary.transitions).toEqual([{ runId: 'late', from: 'TIMED_OUT', to: 'FAILED' }]);
    expect(await app.states.get('late')).toMatchObject({ state: 'FAILED', errorType: 'oom' });
    expect(t.slack.received.length).toBe(slackBefore + 1);
  });

  it('stays live while a writer starts a new attempt during the move, and loses nothing it wrote', async () => {
    await completedRun('racer');
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now);
    // The writer's new metadata.json lands between the sweep's copy and its delete of the old one.
    app.clients.s3.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Key?: string };
        if (
          context.commandName === 'DeleteObjectCommand' &&
          input.Key === 'training-runs/racer/metadata.json'
        )
          await t.put('racer', 'metadata', metadata('racer', { attempt: 2, marker: 'new attempt' }));
        return next(args);
      },
      { step: 'initialize', name: 'racingWriter' },
    );
    const ending = await runSweep(app, now + 11 * MIN);
    expect(ending.ended).toBe(0);
    expect(JSON.parse(await body(app, 'training-runs/racer/metadata.json')).marker).toBe('new attempt');
    expect((await app.states.get('racer'))!.ended).toBeUndefined();

    const next = await runSweep(t.app(), Date.now());
    expect(next.transitions).toEqual([{ runId: 'racer', from: 'SUCCEEDED', to: 'RUNNING' }]);
  });

  it('leaves an _error that appears during the ending for the next sweep to judge: alerted, not moved unseen', async () => {
    await completedRun('news');
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now);
    // The _error lands after the sweep's LIST and before the move lists the run's folder.
    let written = false;
    app.clients.s3.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Prefix?: string };
        if (
          !written &&
          context.commandName === 'ListObjectsV2Command' &&
          input.Prefix === 'training-runs/news/'
        ) {
          written = true;
          await t.put('news', 'error', 'RuntimeError: evaluation crashed after the run completed');
        }
        return next(args);
      },
      { step: 'initialize', name: 'lateError' },
    );
    const ending = await runSweep(app, now + 11 * MIN);
    expect(written).toBe(true);
    expect(ending.ended).toBe(0);
    // Nothing moved: the run is judged whole by the next sweep (`_complete` still wins over `_error`).
    expect(await keys(app, 'training-runs/news/')).toHaveLength(8);
    expect(await keys(app, 'trainwatch-ended/news/')).toEqual([]);
    const next = await runSweep(t.app(), now + 12 * MIN);
    expect(next.ended).toBe(0); // the _error was read first; the run ends at the sweep after
    expect((await app.states.get('news'))!.facts.errorMessage).toBe(
      'RuntimeError: evaluation crashed after the run completed',
    );
    expect((await runSweep(t.app(), now + 13 * MIN)).ended).toBe(1);
  });

  it('ends once when two sweeps race to end it: one history line, every file in one folder', async () => {
    await completedRun('twice');
    const now = Date.now();
    await runSweep(t.app(), now);
    const [a, b] = await Promise.all([runSweep(t.app(), now + 11 * MIN), runSweep(t.app(), now + 11 * MIN)]);
    expect(a.ended + b.ended).toBe(1);
    const app = t.app();
    const r = (await app.states.get('twice'))!;
    expect(await keys(app, r.ended!.folder)).toHaveLength(7);
    expect(await keys(app, 'training-runs/twice/')).toEqual([]);
    expect((await app.states.history('twice')).filter((f) => f.reason.startsWith('ended:'))).toHaveLength(1);
  });

  it('a finished run whose files are gone (moved by an ending whose record write failed) ends without files', async () => {
    await t.put('moved', 'metadata', metadata('moved'));
    await t.put('moved', 'complete', '{}');
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now);
    // What an ending that moved every file and then lost its record write leaves behind.
    await app.runs.moveToEnded('moved', 'crashed');
    expect((await runSweep(app, now + 5 * MIN)).ended).toBe(0); // still within the grace period
    const later = await runSweep(app, now + 11 * MIN);
    expect(later.ended).toBe(1);
    expect(later.transitions).toEqual([]);
    expect((await app.states.get('moved'))!.ended).toMatchObject({ files: 0, folder: '' });
    expect((await app.states.history('moved'))[0]!.reason).toBe('ended: no files left under the run prefix');
  });

  it('a running run whose folder vanished is still judged: TIMED_OUT with its alert, not ended in silence', async () => {
    await t.put('vanished', 'metadata', metadata('vanished'));
    const app = t.app();
    const now = Date.now();
    await runSweep(app, now);
    await app.clients.s3.send(
      new (await import('@aws-sdk/client-s3')).DeleteObjectCommand({
        Bucket: app.config.bucket,
        Key: 'training-runs/vanished/metadata.json',
      }),
    );
    const late = await runSweep(app, now + 20 * MIN);
    expect(late.transitions).toEqual([{ runId: 'vanished', from: 'RUNNING', to: 'TIMED_OUT' }]);
    expect(late.ended).toBe(0);
    expect((await runSweep(app, now + 31 * MIN)).ended).toBe(1);
  });

  it('keeps an unacknowledged FAILED run live while reminders are on', async () => {
    const r = await testEnvironment({ TRAINWATCH_ENDED_AFTER: '10m', TRAINWATCH_REMIND_EVERY: '30m' });
    try {
      await r.put('nagged', 'metadata', metadata('nagged'));
      await r.put('nagged', 'error', 'RuntimeError: boom');
      const app = r.app();
      const now = Date.now();
      await runSweep(app, now);
      expect((await runSweep(app, now + 11 * MIN)).ended).toBe(0);
      expect((await app.states.get('nagged'))!.ended).toBeUndefined();
    } finally {
      await r.close();
    }
  });
});

describe('items an earlier version stored', () => {
  it('a live run kept at RUN#id/STATE moves to its live partition on first read, once, with no alert', async () => {
    const app = t.app();
    await t.put('old', 'metadata', metadata('old'));
    await t.put('old', 'progress', progress(7));
    const now = Date.now();
    await app.clients.ddb.send(
      new PutCommand({
        TableName: app.config.table,
        Item: {
          ...endedKey('old'),
          runId: 'old',
          state: 'RUNNING',
          reason: 'heartbeats fresh',
          attempt: 1,
          version: 4,
          since: now - MIN,
          updatedAt: now - MIN,
          firstSeenAt: now - MIN,
          etags: {},
          locks: {},
        },
      }),
    );
    const sweep = await runSweep(app, now);
    expect(sweep.transitions).toEqual([]);
    expect(t.slack.received).toHaveLength(0);
    expect((await app.states.loadLive()).get('old')).toMatchObject({ state: 'RUNNING', version: 6 });
    const home = await app.clients.ddb.send(
      new (await import('@aws-sdk/lib-dynamodb')).GetCommand({
        TableName: app.config.table,
        Key: endedKey('old'),
      }),
    );
    expect(home.Item).toBeUndefined();
    expect(liveKey('old').pk).toMatch(/^LIVE#[0-3]$/);
  });
});
