import type { Alert } from '../model/alert.js';
import { alertFields, clip, oneLine } from './fields.js';
import { isOncallAlert, oncallHeadline, runLines } from './oncall.js';

/** SNS: a subject is ASCII, one line, at most 100 characters. */
export const SNS_SUBJECT_MAX = 100;
/** Far below SNS's 256 KB, and short enough to read in an email. */
const LOG_LINE_MAX = 1000;
/** SNS takes 256 KB of UTF-8; 60,000 UTF-16 units stay below it even at 4 bytes per pair. */
const BODY_MAX = 60_000;

/** Typographic characters that have a plain ASCII spelling. */
const ASCII_SPELLING: Readonly<Record<string, string>> = {
  '—': '-',
  '–': '-',
  '‘': "'",
  '’': "'",
  '“': '"',
  '”': '"',
  '…': '...',
  '·': '-',
  '→': '->',
  '×': 'x',
};

/** Printable ASCII only: accents are dropped from letters, anything else without a spelling becomes `?`. */
export function toAscii(text: string): string {
  return oneLine(text)
    .normalize('NFKD')
    .replace(/[\u0300-\u036F]/g, '')
    .replace(/[^\x20-\x7E]/gu, (c) => ASCII_SPELLING[c] ?? '?')
    .replace(/\s+/g, ' ');
}

/** `[trainwatch] run-42 FAILED: CUDA out of memory` */
function subjectFor(alert: Alert): string {
  if (isOncallAlert(alert))
    return clip(toAscii(`[trainwatch] ${oncallHeadline(alert)}`), SNS_SUBJECT_MAX, '...');
  const still =
    alert.kind === 'reminder'
      ? 'still '
      : alert.kind === 'remediation' && alert.state !== 'RESTARTING'
        ? 'diagnosed '
        : '';
  const firstLine = (alert.reason.trim().split('\n')[0] ?? '').slice(0, 2 * SNS_SUBJECT_MAX);
  const subject = toAscii(`[trainwatch] ${alert.runId} ${still}${alert.state}: ${firstLine}`).replace(
    /:\s*$/,
    '',
  );
  return clip(subject, SNS_SUBJECT_MAX, '...');
}

/** An SNS notification (email, SMS, chat): an ASCII subject and a plain-text body with every present fact. */
export function snsMessage(alert: Alert): { subject: string; body: string } {
  const was =
    alert.previousState && alert.previousState !== alert.state ? ` (was ${alert.previousState})` : '';
  const lines: string[] = [
    isOncallAlert(alert)
      ? `${oncallHeadline(alert)}.`
      : `Run ${alert.runId} is ${alert.state}${was}${alert.kind === 'reminder' ? ' - reminder' : ''}.`,
    '',
    alert.reason.trim() || 'No reason given.',
    '',
    `Action: ${alert.action}`,
    '',
  ];

  const fields = alert.runs ? [] : alertFields(alert); // on-call: the listed runs instead
  const width = Math.max(2, ...fields.map((f) => f.label.length)) + 2;
  for (const f of fields) lines.push(`${`${f.label}:`.padEnd(width)}${f.value}`);
  if (Number.isFinite(alert.at)) lines.push(`${'At:'.padEnd(width)}${new Date(alert.at).toISOString()}`);

  const listed = runLines(alert, 100); // on-call lifecycle: grouped alert, silence summary
  if (listed.length > 0) lines.push('', 'Runs:', ...listed.map((l) => `- ${l}`));

  const details = (alert.details ?? []).map((d) => d.trim()).filter(Boolean);
  if (details.length > 0) lines.push('', 'Details:', ...details.map((d) => `- ${d}`));

  if (alert.lastLogLine?.trim())
    lines.push('', 'Last log line:', `  ${clip(oneLine(alert.lastLogLine), LOG_LINE_MAX)}`);

  lines.push('', `S3:      ${alert.s3Uri}`, `Console: ${alert.consoleUrl}`);
  return { subject: subjectFor(alert), body: clip(`${lines.join('\n')}\n`, BODY_MAX) };
}
