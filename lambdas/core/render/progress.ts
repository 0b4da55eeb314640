import { formatDuration } from '../base/duration.js';

/** The progress fields of an alert (or of a status row). */
export interface ProgressLike {
  readonly step?: number;
  readonly totalSteps?: number;
  readonly etaMs?: number;
}

/** Whole percent done, floored so that a run shows 100% only at its last step; undefined without a total. */
export function percentDone(step: number, total: number | undefined): number | undefined {
  if (!total || total <= 0 || !Number.isFinite(step)) return undefined;
  return Math.floor(Math.min(1, Math.max(0, step / total)) * 100);
}

/** `█████░░░░░ 52%`: a bar of `width` cells; empty when the total is unknown. */
export function progressBar(step: number, total: number | undefined, width = 10): string {
  const pct = percentDone(step, total);
  if (pct === undefined) return '';
  const cells = Math.max(1, Math.floor(width));
  const filled = Math.floor((pct / 100) * cells);
  return `${'█'.repeat(filled)}${'░'.repeat(cells - filled)} ${pct}%`;
}

/** `5,200`: thousands separators without depending on the runtime's locale data. */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const [int, frac] = String(Math.abs(n)).split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${n < 0 ? '-' : ''}${grouped}${frac ? `.${frac}` : ''}`;
}

/** `step 5,200 / 10,000 (52%) · ETA 3h 12m`; undefined when there is no step. */
export function progressText(p: ProgressLike): string | undefined {
  if (p.step === undefined || !Number.isFinite(p.step)) return undefined;
  const pct = percentDone(p.step, p.totalSteps);
  let text = `step ${formatCount(p.step)}`;
  if (pct !== undefined) text += ` / ${formatCount(p.totalSteps!)} (${pct}%)`;
  // No ETA once the last step is reached: "ETA 0s" would read as a promise.
  if (p.etaMs !== undefined && Number.isFinite(p.etaMs) && p.etaMs > 0 && pct !== 100)
    text += ` · ETA ${formatDuration(p.etaMs)}`;
  return text;
}
