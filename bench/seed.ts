import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { mapLimit } from '../lambdas/core/base/mapLimit.js';

/** The mix of a realistic fleet: mostly healthy, some finished, a few broken. */
export const MIX = [
  { kind: 'healthy', share: 0.9 },
  { kind: 'succeeded', share: 0.04 },
  { kind: 'failed', share: 0.02 },
  { kind: 'timed-out', share: 0.02 },
  { kind: 'invalid', share: 0.01 },
  { kind: 'pending', share: 0.01 },
] as const;

export type Kind = (typeof MIX)[number]['kind'];

export function kindOf(i: number, n: number): Kind {
  let edge = 0;
  for (const m of MIX) {
    edge += m.share * n;
    if (i < edge) return m.kind;
  }
  return 'healthy';
}

const runId = (i: number) => `run-${String(i).padStart(6, '0')}`;

function files(i: number, kind: Kind): [string, string][] {
  const id = runId(i);
  const now = new Date().toISOString();
  const meta = (extra: object = {}) =>
    JSON.stringify({
      run_id: id,
      status: 'running',
      phase: 'training',
      last_update: now,
      instance_id: 'i-0123456789abcdef0',
      job_name: `job-${i % 50}`,
      ...extra,
    });
  const prog = (step: number) =>
    JSON.stringify({ step, total_steps: 100_000, loss: 1.2345, learning_rate: 0.0003, last_updated: now });
  const log: [string, string] = ['logs/training_log_latest.txt', `step ${i} loss=1.2345\n`];
  switch (kind) {
    case 'healthy':
      return [['metadata.json', meta()], ['progress.json', prog(i)], log];
    case 'succeeded':
      return [
        ['metadata.json', meta({ status: 'completed' })],
        ['progress.json', prog(100_000)],
        ['_complete', '{"step":100000}'],
      ];
    case 'failed':
      return [
        ['metadata.json', meta({ status: 'failed' })],
        ['progress.json', prog(i)],
        ['_error', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'],
        log,
      ];
    case 'timed-out':
      // stale_minutes tiny: stale by the time the sweep runs, without faking S3's clock.
      return [
        ['metadata.json', meta({ stale_minutes: 0.001 })],
        ['progress.json', prog(i)],
      ];
    case 'invalid':
      return [
        ['metadata.json', '{"status": "running", '],
        ['progress.json', prog(i)],
      ];
    case 'pending':
      return [log];
  }
}

/** Writes N runs under `prefix`; returns how many objects it wrote. */
export async function seed(s3: S3Client, bucket: string, prefix: string, n: number): Promise<number> {
  const puts = Array.from({ length: n }, (_, i) =>
    files(i, kindOf(i, n)).map(([f, body]) => ({ Key: `${prefix}/${runId(i)}/${f}`, body })),
  ).flat();
  await mapLimit(puts, 32, (p) =>
    s3.send(new PutObjectCommand({ Bucket: bucket, Key: p.Key, Body: p.body })),
  );
  return puts.length;
}

/** Rewrites progress.json of every healthy run with a later step (a new ETag), as training would. */
export async function advanceHealthy(
  s3: S3Client,
  bucket: string,
  prefix: string,
  n: number,
): Promise<number> {
  const ids = Array.from({ length: n }, (_, i) => i).filter((i) => kindOf(i, n) === 'healthy');
  await mapLimit(ids, 32, (i) =>
    s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `${prefix}/${runId(i)}/progress.json`,
        Body: JSON.stringify({
          step: i + 500,
          total_steps: 100_000,
          loss: 1.1,
          last_updated: new Date().toISOString(),
        }),
      }),
    ),
  );
  return ids.length;
}
