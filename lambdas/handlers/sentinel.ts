import { Logger } from '@aws-lambda-powertools/logger';
import { splitRunKey } from '../core/model/listing.js';
import { bringBack, checkRun, type SweepSummary, summarise } from '../core/pipeline/index.js';
import { runIdProblem } from '../core/protocol/runId.js';
import { objectKeys } from '../events/objectCreated.js';
import { type App, createApp } from '../wiring/app.js';

const logger = new Logger({ serviceName: 'trainwatch' });
let app: App | undefined;

/** Evaluates at once the runs whose `_error` / `_complete` just appeared, instead of waiting for the sweep. */
export async function evaluateSentinels(a: App, event: unknown, now: number): Promise<SweepSummary> {
  const { keys, invalid } = objectKeys(event);
  for (const problem of invalid) logger.warn('ignored event', { problem });
  const runIds = new Set<string>();
  for (const { bucket, key } of keys) {
    // With the run prefix at the bucket's root, the ended folder lies under it: its copies are no news.
    const ended = key.startsWith(`${a.config.endedPrefix}/`);
    const runId = bucket === a.config.bucket && !ended ? splitRunKey(a.config.prefix, key)?.runId : undefined;
    if (runId && !runIdProblem(runId)) runIds.add(runId);
    else logger.warn('ignored key outside the watched prefix', { bucket, key });
  }
  const outcomes = [];
  for (const runId of runIds) {
    const [run, found] = await Promise.all([a.runs.listRun(runId), a.states.get(runId)]);
    if (!run) continue;
    // A late `_error`/`_complete` of a run that ended, or a new attempt's: the run is live again first.
    const stored = await bringBack(a.states, found);
    if (stored !== null) outcomes.push(await checkRun(a.deps, run, stored, now));
  }
  return summarise(now, outcomes);
}

/** Lambda entry: an EventBridge S3 `Object Created` event (or an SQS batch of them). */
export const handler = async (event: unknown): Promise<SweepSummary> => {
  app ??= createApp(process.env);
  const summary = await evaluateSentinels(app, event, Date.now());
  logger.info('sentinel', { transitions: summary.transitions, errors: summary.errors });
  return summary;
};
