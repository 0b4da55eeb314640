import { formatDuration } from '../base/duration.js';
import type { Alert } from '../model/alert.js';
import type { AlertProgress } from '../model/slices/attempt.js';
import { type ProgressLike, progressText } from './progress.js';

/** One labelled fact about the run, as plain text. */
export interface AlertField {
  readonly label: string;
  readonly value: string;
  /** Render the value as code (ids, error types). */
  readonly code?: boolean;
}

/** `2.346`, `0.0003`: four significant digits, enough to see a trend, without float noise (loss, learning rate). */
export function formatMetric(loss: number): string {
  return Number.isFinite(loss) ? String(Number(loss.toPrecision(4))) : String(loss);
}

/** The facts an alert carries, in display order, only those present. Shared by every channel. */
export function alertFields(alert: Alert): AlertField[] {
  const fields: (AlertField | undefined)[] = [
    alert.where
      ? { label: 'Runs on', value: alert.where }
      : alert.instanceId
        ? { label: 'Instance', value: alert.instanceId, code: true }
        : undefined,
    alert.jobName ? { label: 'Job', value: alert.jobName } : undefined,
    alert.phase ? { label: 'Phase', value: alert.phase } : undefined,
    { label: 'Attempt', value: String(alert.attempt) },
    alert.durationMs !== undefined
      ? { label: 'Duration', value: formatDuration(alert.durationMs) }
      : undefined,
    alert.errorType ? { label: 'Error type', value: alert.errorType, code: true } : undefined,
    alert.previousState ? { label: 'Previous state', value: alert.previousState } : undefined,
    ...progressFields(alert),
  ];
  return fields.filter((f): f is AlertField => f !== undefined);
}

/**
 * What the attempt reported of its progress, as fields, only those present: every alert channel shows them
 * (at most 10 fields reach Slack) and so does `trainwatch status RUN_ID`.
 */
export function progressFields(p: AlertProgress & ProgressLike): AlertField[] {
  const fields: (AlertField | undefined)[] = [
    textField('Progress', progressText(p)),
    p.loss !== undefined ? { label: 'Loss', value: formatMetric(p.loss) } : undefined,
    p.learningRate !== undefined
      ? { label: 'Learning rate', value: formatMetric(p.learningRate) }
      : undefined,
  ];
  return fields.filter((f): f is AlertField => f !== undefined);
}

function textField(label: string, value: string | undefined): AlertField | undefined {
  return value ? { label, value } : undefined;
}

/** Cuts `text` to at most `max` UTF-16 units, ending in `…`, never splitting a surrogate pair. */
export function clip(text: string, max: number, ellipsis = '…'): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - ellipsis.length));
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut + ellipsis;
}

/** One line: control characters and line breaks become spaces (log lines, subjects). */
export function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  return text.replace(/[\u0000-\u001F\u007F]+/g, ' ').trim();
}
