import { parseArgs } from 'node:util';
import { formatDuration } from '../../lambdas/core/base/duration.js';
import { describeScope, isActive, type Silence } from '../../lambdas/core/oncall/index.js';
import { createApp } from '../../lambdas/wiring/app.js';
import { nowFrom } from './oncallArgs.js';

/** One line per silence: id, scope, time left (or how it ended), who and why. */
export function silenceLine(s: Silence, now: number): string {
  const left = isActive(s, now)
    ? `${formatDuration(s.endsAt - now)} left`
    : s.removedAt !== undefined
      ? `removed by ${s.removedBy ?? '?'}`
      : now < s.createdAt
        ? 'not started'
        : `ended ${formatDuration(now - s.endsAt)} ago`;
  const summary = s.summary ? (s.summary.pending.length ? ', summary pending' : ', summary sent') : '';
  return `${s.id}  ${describeScope(s.scope).padEnd(20)}  ${left}${summary}  by ${s.by}: ${s.reason}`;
}

/** `trainwatch silences [--json]`: every silence still stored, active first. */
export async function run(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' }, now: { type: 'string' } } });
  const now = nowFrom(values.now);
  const all = await createApp(process.env).silences.list();
  const sorted = [...all].sort(
    (a, b) => Number(isActive(b, now)) - Number(isActive(a, now)) || a.endsAt - b.endsAt,
  );
  if (values.json) console.log(JSON.stringify(sorted, null, 2));
  else console.log(sorted.length ? sorted.map((s) => silenceLine(s, now)).join('\n') : 'no silences');
  return 0;
}
