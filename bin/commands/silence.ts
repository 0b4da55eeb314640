import { parseArgs } from 'node:util';
import { parseDuration } from '../../lambdas/core/base/duration.js';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import { HELD_CHANNELS_TEXT } from '../../lambdas/core/model/channels.js';
import { describeScope, type Silence, type SilenceScope } from '../../lambdas/core/oncall/index.js';
import { assertRunId } from '../../lambdas/core/protocol/runId.js';
import { addSilence as add, MAX_SILENCE_MS } from '../../lambdas/operations/index.js';
import { type App, createApp } from '../../lambdas/wiring/app.js';
import { byFrom, nowFrom, textFrom } from './oncallArgs.js';

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

/** Stores a new silence (lambdas/operations: the same code as Slack's Silence buttons); it takes effect at the next sweep. */
export async function addSilence(
  app: App,
  scope: SilenceScope,
  forMs: number | 'resolved',
  reason: string,
  by: string,
  now: number,
): Promise<Silence> {
  return add(app, scope, forMs, reason, by, now);
}

/** `trainwatch silence (--run ID | --job JOB | --all) (--for 2h | --until-resolved) --reason TEXT [--by NAME]` */
export async function run(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      run: { type: 'string' },
      job: { type: 'string' },
      all: { type: 'boolean' },
      for: { type: 'string' },
      'until-resolved': { type: 'boolean' },
      reason: { type: 'string' },
      by: { type: 'string' },
      now: { type: 'string' },
    },
  });
  const scope = scopeFrom(values);
  if (values['until-resolved'] && values.for !== undefined)
    throw new ConfigError('give --for or --until-resolved, not both');
  const forMs = values['until-resolved']
    ? 'resolved'
    : values.for === undefined
      ? undefined
      : parseDuration(values.for);
  if (forMs === undefined || (forMs !== 'resolved' && forMs > MAX_SILENCE_MS))
    throw new ConfigError('--for must be a duration up to 14d (e.g. 30m, 2h, 1d), or give --until-resolved');
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
  const until = s.untilResolved ? 'the run is healthy again' : new Date(s.endsAt).toISOString();
  console.log(
    `silence ${s.id} on ${describeScope(scope)} until ${until}: ${HELD_CHANNELS_TEXT} are held; a summary follows when it ends (trainwatch unsilence ${s.id} ends it now)`,
  );
  return 0;
}
