// The sweep's LIST ranges (issue 24): split at run ids, listed in parallel, they see exactly what one
// LIST of the whole prefix sees, whatever ids lie around the split points.
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3RunStore } from '../../lambdas/adapters/stores/s3RunStore.js';
import { type TestEnvironment, testEnvironment } from '../support/environment.js';

let t: TestEnvironment;
beforeAll(async () => {
  t = await testEnvironment();
});
afterAll(() => t.close());

// Ids that sort right next to each other around '/', '.', '-', '_' and case.
const IDS = ['9', 'A', 'B', 'a', 'a-1', 'a.b', 'a0', 'a_b', 'ab', 'ab-c', 'b', 'z.z'];

async function put(prefix: string, key: string, body = '{}'): Promise<void> {
  const app = t.app();
  await app.clients.s3.send(
    new PutObjectCommand({ Bucket: app.config.bucket, Key: prefix ? `${prefix}/${key}` : key, Body: body }),
  );
}

describe('S3RunStore.listRuns with split points', () => {
  it('sees every run exactly once, also new runs between split points and ids next to them', async () => {
    for (const id of IDS) {
      await put('training-runs', `${id}/metadata.json`);
      await put('training-runs', `${id}/nodes/0.json`);
      await put('training-runs', `${id}/attempts/1/metadata.json`);
    }
    await put('training-runs', 'bad id!/metadata.json');
    const store = new S3RunStore(t.app().config.bucket, 'training-runs', t.app().clients.s3);
    const whole = await store.listRuns();
    expect(whole.runs.map((r) => r.runId)).toEqual([...IDS].sort());
    for (const split of [['a'], ['a', 'ab'], ['A', 'a-1', 'a.b', 'a_b', 'b'], ['0', 'aa', 'zz'], IDS]) {
      const ranged = await store.listRuns(split);
      expect(ranged.runs, split.join(',')).toEqual(whole.runs);
      expect(ranged.ignored).toEqual(whole.ignored);
    }
  });

  it('with the runs at the bucket root, never takes the ended folder for a run', async () => {
    const env = await testEnvironment({ TRAINWATCH_PREFIX: '' });
    try {
      const app = env.app();
      await app.clients.s3.send(
        new PutObjectCommand({ Bucket: app.config.bucket, Key: 'root-run/metadata.json', Body: '{}' }),
      );
      await app.clients.s3.send(
        new PutObjectCommand({
          Bucket: app.config.bucket,
          Key: 'trainwatch-ended/old-run/2026-11-01T000000.000Z/_complete',
          Body: '{}',
        }),
      );
      expect((await app.runs.listRuns()).runs.map((r) => r.runId)).toEqual(['root-run']);
    } finally {
      await env.close();
    }
  });
});
