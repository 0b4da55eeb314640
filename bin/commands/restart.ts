import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import { assertRunId } from '../../lambdas/core/protocol/runId.js';
import { requestRestart } from '../../lambdas/operations/index.js';
import { createApp } from '../../lambdas/wiring/app.js';
import { onCallOf } from '../../lambdas/wiring/onCall.js';
import { byFrom } from './oncallArgs.js';

/**
 * `trainwatch restart RUN_ID [--by NAME]`: asks the remediation function to probe the run again and restart
 * it if the restart policy and the probe allow (the same request as Slack's Restart now). Never blind.
 */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { by: { type: 'string' } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new ConfigError('usage: trainwatch restart RUN_ID [--by NAME]');
  const runId = assertRunId(positionals[0]!);
  const by = byFrom(values.by);
  const r = await requestRestart(onCallOf(createApp(process.env)), runId, by, `cli:${randomUUID()}`);
  console.log(
    `asked remediation to restart ${runId} (${r.state}) for ${by}: it probes the instance again and restarts only if the policy and the probe allow; the alert says what it did`,
  );
  return 0;
}
