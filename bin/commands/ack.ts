import { parseArgs } from 'node:util';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import { assertRunId } from '../../lambdas/core/protocol/runId.js';
import { acknowledgeRun } from '../../lambdas/operations/index.js';
import { type App, createApp } from '../../lambdas/wiring/app.js';
import { onCallOf } from '../../lambdas/wiring/onCall.js';
import { byFrom, nowFrom, textFrom } from './oncallArgs.js';

/**
 * Acknowledges a run (lambdas/operations: the same code as Slack's Acknowledge button): the ack and its
 * announcement on the run item in one conditional write, and a history line. Writes nothing else.
 */
export async function ackRun(
  app: App,
  runId: string,
  by: string,
  note: string | undefined,
  now: number,
): Promise<string> {
  const r = await acknowledgeRun(onCallOf(app), runId, by, note, now);
  return `acknowledged ${runId} (${r.state}) as ${by}: reminders stop until its next transition; the next sweep announces it`;
}

/** `trainwatch ack RUN_ID [--by NAME] [--note TEXT]` */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { by: { type: 'string' }, note: { type: 'string' }, now: { type: 'string' } },
    allowPositionals: true,
  });
  if (positionals.length !== 1)
    throw new ConfigError('usage: trainwatch ack RUN_ID [--by NAME] [--note TEXT]');
  const runId = assertRunId(positionals[0]!);
  console.log(
    await ackRun(
      createApp(process.env),
      runId,
      byFrom(values.by),
      textFrom('note', values.note),
      nowFrom(values.now),
    ),
  );
  return 0;
}
