// What every fleet benchmark shares: a bucket and table on the emulator with thresholds that let `now`
// be fast-forwarded, and one sweep run in a fresh process (as one Lambda invocation).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createApp } from '../lambdas/wiring/app.js';
import { awsClients } from '../local/awsClients.js';
import { setupLocal } from '../local/setup.js';

/** What bench/sweepOnce.ts prints for one sweep: its report, AWS requests, peak memory, item sizes. */
export interface Once {
  report: { runs: number; durationMs: number; writes: number; transitions: unknown[]; errors: unknown[] };
  counts: Record<string, number>;
  maxRssMb: number;
  items: number;
  bytes: number;
}

/** This process's environment pointed at the emulator, with a bucket and a table named `name`. */
export function emulatorEnv(endpoint: string, name: string) {
  return {
    ...process.env,
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    TRAINWATCH_BUCKET: name,
    TRAINWATCH_TABLE: name,
  };
}

/**
 * A fleet's environment on the emulator, its bucket and table created; the app has every client. The
 * table is `name`; so is the bucket unless `bucket` shares another fleet's, under its own `prefix`.
 */
export async function fleet(
  endpoint: string,
  name: string,
  stallMinutes: number,
  opts: { bucket?: string; prefix?: string } = {},
) {
  const env = {
    ...emulatorEnv(endpoint, opts.bucket ?? name),
    TRAINWATCH_TABLE: name,
    ...(opts.prefix ? { TRAINWATCH_PREFIX: opts.prefix } : {}),
    // Long stale and grace thresholds let us fast-forward `now` by 15 min without real waiting; request counts don't depend on them.
    TRAINWATCH_STALE_AFTER: '2h',
    TRAINWATCH_STARTUP_GRACE: '2h',
    TRAINWATCH_STALL_AFTER: `${stallMinutes}m`,
  };
  const app = createApp(env, awsClients({ region: env.AWS_REGION, endpoint }));
  await setupLocal(app.config, app.clients);
  return { env, app };
}

/**
 * One sweep at `now` in a fresh process, so its peak memory is its own. Async, so this process keeps
 * draining the emulator's output while the sweep runs.
 */
export async function sweepOnce(env: NodeJS.ProcessEnv, now: number, timeoutMs: number): Promise<Once> {
  const { stdout } = await promisify(execFile)('npx', ['tsx', 'bench/sweepOnce.ts', String(now)], {
    env,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    timeout: timeoutMs,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}
