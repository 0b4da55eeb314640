import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { mapLimit } from '../lambdas/core/base/mapLimit.js';

/**
 * The reference strategy of a simple poll loop: discover runs, then per run GET metadata.json,
 * GET progress.json, HEAD _error and HEAD _complete, every sweep. Measured, not modelled.
 */
export async function naiveSweep(
  s3: S3Client,
  bucket: string,
  prefix: string,
  concurrency: number,
): Promise<{ runs: number; list: number; get: number; head: number; ms: number }> {
  const started = performance.now();
  const runs: string[] = [];
  let list = 0;
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: `${prefix}/`,
        Delimiter: '/',
        ContinuationToken: token,
      }),
    );
    list++;
    for (const p of page.CommonPrefixes ?? []) if (p.Prefix) runs.push(p.Prefix);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  let get = 0;
  let head = 0;
  const quiet = async (p: Promise<unknown>) => p.catch(() => undefined);
  await mapLimit(runs, concurrency, async (run) => {
    for (const f of ['metadata.json', 'progress.json']) {
      const res = await quiet(s3.send(new GetObjectCommand({ Bucket: bucket, Key: `${run}${f}` })));
      await (
        res as { Body?: { transformToString(): Promise<string> } } | undefined
      )?.Body?.transformToString();
      get++;
    }
    for (const f of ['_error', '_complete']) {
      await quiet(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: `${run}${f}` })));
      head++;
    }
  });
  return { runs: runs.length, list, get, head, ms: Math.round(performance.now() - started) };
}
