import { etaMs } from '../lambdas/core/alerting/alerts.js';
import { formatDuration } from '../lambdas/core/base/duration.js';
import type { RunRecord } from '../lambdas/core/model/record.js';
import { progressBar } from '../lambdas/core/render/progress.js';

/** The live status table of the local mode: one row per run, with a progress bar and ETA. */
export function statusTable(records: readonly RunRecord[], width = 60): string {
  const rows = [...records]
    .sort((a, b) => a.runId.localeCompare(b.runId))
    .map((r) => {
      const bar =
        r.facts.step === undefined
          ? ''
          : `${progressBar(r.facts.step, r.facts.totalSteps, 12)} ${r.facts.step}/${r.facts.totalSteps ?? '?'}`;
      const eta = r.state === 'RUNNING' ? etaMs(r.facts) : undefined;
      // An ended run's files moved under the ended prefix: say so first (docs/STATES.md "Ended runs").
      const said = r.ended ? `ended, files in ${r.ended.folder || '(none)'}; ${r.reason}` : r.reason;
      const reason = said.length > width ? `${said.slice(0, width - 1)}…` : said;
      return [
        r.runId,
        r.state + (r.errorType ? ` (${r.errorType})` : ''),
        String(r.attempt),
        bar,
        eta === undefined ? '' : formatDuration(eta),
        reason,
      ];
    });
  const header = ['RUN', 'STATE', 'TRY', 'PROGRESS', 'ETA', 'REASON'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows]
    .map((cols) =>
      cols
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
