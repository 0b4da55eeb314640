import { parseArgs } from 'node:util';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import { runSweep, type SweepReport } from '../../lambdas/handlers/sweep.js';
import { createApp } from '../../lambdas/wiring/app.js';

/** One line per transition and a summary, for people. */
export function formatReport(r: SweepReport): string {
  const states = Object.entries(r.byState)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ');
  const requests = Object.entries(r.requests)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ');
  const lines = [
    `swept ${r.runs} runs in ${r.durationMs} ms at ${new Date(r.at).toISOString()}: ${states || 'no runs'}`,
    `transitions ${r.transitions.length}, alerts sent ${r.alertsSent}, failed ${r.alertsFailed}, conflicts ${r.conflicts}, writes ${r.writes}; requests: ${requests || 'none'}`,
    ...(r.oncall && r.oncall.groups + r.oncall.summaries > 0
      ? [
          `on call: ${r.oncall.groups} grouped alerts (${r.oncall.grouped} runs), ${r.oncall.summaries} silence summaries`,
        ]
      : []),
    ...r.transitions.map((t) => `  ${t.runId}: ${t.from ?? '(new)'} -> ${t.to}`),
    ...r.errors.map((e) => `  error ${e.runId}: ${e.error}`),
    ...r.ignoredKeys.slice(0, 10).map((k) => `  ignored ${k.key}: ${k.problem}`),
  ];
  return lines.join('\n');
}

/** `trainwatch sweep [--now ISO-8601] [--json]`: one sweep, the same code as the Lambda. */
export async function run(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { now: { type: 'string' }, json: { type: 'boolean' } } });
  const now = values.now === undefined ? Date.now() : Date.parse(values.now);
  if (Number.isNaN(now)) throw new ConfigError(`--now ${JSON.stringify(values.now)} is not an ISO-8601 time`);
  const report = await runSweep(createApp(process.env), now);
  console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
  return report.errors.length > 0 ? 1 : 0;
}
