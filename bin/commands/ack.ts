import { parseArgs } from 'node:util';
import { DynamoAckStore } from '../../lambdas/adapters/dynamoAckStore.js';
import { type App, createApp } from '../../lambdas/app.js';
import { ConfigError } from '../../lambdas/core/errors.js';
import { ALL_CHANNELS, ackLine, acknowledge, ackProblem } from '../../lambdas/core/oncall/index.js';
import { assertRunId } from '../../lambdas/core/protocol/runId.js';
import type { Flip, OutboxEntry } from '../../lambdas/core/record.js';
import { byFrom, nowFrom, textFrom } from './oncallArgs.js';

/**
 * Acknowledges a run: the ack and its announcement go on the run item in one conditional write (the
 * announcement as an outbox entry due at once: the next sweep sends it once, on every channel the
 * stack has, PagerDuty as `acknowledge`), and a history line. Writes nothing else.
 */
export async function ackRun(
  app: App,
  runId: string,
  by: string,
  note: string | undefined,
  now: number,
): Promise<string> {
  const r = await app.states.get(runId);
  const problem = ackProblem(r, runId);
  if (problem || !r) throw new ConfigError(problem ?? `no run ${runId}`);
  const { ack, alert } = acknowledge(r, by, note, now, app.deps.links);
  const entry: OutboxEntry = { alert, pending: [...ALL_CHANNELS], attempts: 0, leaseUntil: now };
  const flip: Flip = {
    runId,
    from: r.state,
    to: r.state,
    reason: ackLine(by, note),
    at: now,
    attempt: r.attempt,
    version: r.version + 1,
    errorType: r.errorType,
  };
  await new DynamoAckStore(app.config.table, app.clients.ddb, app.config.historyTtlDays).acknowledge(
    r,
    ack,
    entry,
    flip,
  );
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
