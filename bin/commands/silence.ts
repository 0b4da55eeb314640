import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { type App, createApp } from '../../lambdas/app.js';
import { parseDuration } from '../../lambdas/core/duration.js';
import { ConfigError } from '../../lambdas/core/errors.js';
import { describeScope, type Silence, type SilenceScope } from '../../lambdas/core/oncall/index.js';
import { assertRunId } from '../../lambdas/core/protocol/runId.js';
import { byFrom, nowFrom, textFrom } from './oncallArgs.js';

/** A silence longer than this is a mistake (a forgotten maintenance window pages nobody for weeks). */
const MAX_SILENCE_MS = 14 * 86_400_000;

/** The one scope the flags name; exactly one of --run, --job, --all. */
export function scopeFrom(v: { run?: string; job?: string; all?: boolean }): SilenceScope {
  const given = [v.run !== undefined, v.job !== undefined, v.all === true].filter(Boolean).length;
  if (given !== 1) throw new ConfigError('name exactly one of --run RUN_ID, --job JOB or --all');
  if (v.run !== undefined) return { kind: 'run', runId: assertRunId(v.run) };
  if (v.job !== undefined) {
    const job = v.job.trim();
    if (!job || job.length > 200) throw new ConfigError('--job must be a job name of 1 to 200 characters');
    return { kind: 'job', jobName: job };
  }
  return { kind: 'all' };
}

/** Stores a new silence; it takes effect at the next sweep, with no redeploy. */
export async function addSilence(
  app: App,
  scope: SilenceScope,
  forMs: number,
  reason: string,
  by: string,
  now: number,
): Promise<Silence> {
  const s: Silence = {
    id: `s-${randomUUID().slice(0, 8)}`,
    scope,
    reason,
    by,
    createdAt: now,
    endsAt: now + forMs,
  };
  await app.silences.putSilence(s);
  return s;
}

/** `trainwatch silence (--run ID | --job JOB | --all) --for 2h --reason TEXT [--by NAME]` */
export async function run(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      run: { type: 'string' },
      job: { type: 'string' },
      all: { type: 'boolean' },
      for: { type: 'string' },
      reason: { type: 'string' },
      by: { type: 'string' },
      now: { type: 'string' },
    },
  });
  const scope = scopeFrom(values);
  const forMs = values.for === undefined ? undefined : parseDuration(values.for);
  if (forMs === undefined || forMs > MAX_SILENCE_MS)
    throw new ConfigError('--for must be a duration up to 14d (e.g. 30m, 2h, 1d)');
  const reason = textFrom('reason', values.reason);
  if (!reason) throw new ConfigError('--reason is required: say why, for whoever is on call next');
  const s = await addSilence(
    createApp(process.env),
    scope,
    forMs,
    reason,
    byFrom(values.by),
    nowFrom(values.now),
  );
  console.log(
    `silence ${s.id} on ${describeScope(scope)} until ${new Date(s.endsAt).toISOString()}: Slack, SNS and PagerDuty are held; a summary follows when it ends (trainwatch unsilence ${s.id} ends it now)`,
  );
  return 0;
}
