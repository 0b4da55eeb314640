import type { Alert } from '../model/alert.js';
import { clip, oneLine } from './fields.js';

/** Alert kinds of the on-call lifecycle, which read differently from a run's own alert. */
export function isOncallAlert(alert: Alert): boolean {
  return alert.kind === 'group' || alert.kind === 'summary' || alert.kind === 'acknowledgement';
}

/** `12 runs TIMED_OUT in one sweep` / `Silence s-1 ended` / `a-1 acknowledged by ana`. */
export function oncallHeadline(alert: Alert): string {
  if (alert.kind === 'group') return `${alert.runs?.length ?? 0} runs ${alert.state} in one sweep`;
  if (alert.kind === 'summary')
    return `Silence ${alert.silence?.id ?? ''} over: ${alert.runs?.length ?? 0} still unhealthy`;
  return `${alert.runId} (${alert.state}) acknowledged by ${alert.acknowledgedBy ?? 'someone'}`;
}

/** The listed runs, one per line: `a-1 — TIMED_OUT: no heartbeat for 11m`, at most `max` lines. */
export function runLines(alert: Alert, max = 25): string[] {
  const runs = alert.runs ?? [];
  const lines = runs
    .slice(0, max)
    .map(
      (r) =>
        `${r.runId} — ${r.state}${r.errorType ? ` (${r.errorType})` : ''}: ${clip(oneLine(r.reason), 160)}`,
    );
  if (runs.length > max) lines.push(`… and ${runs.length - max} more`);
  return lines;
}
