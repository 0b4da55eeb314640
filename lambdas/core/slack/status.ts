// `/trainwatch status [RUN]`: the live runs' table, or one run's detail, as an ephemeral Slack answer.
// Everything from a heartbeat is escaped and kept inside code spans, so it can mention or link nobody.
import { formatDuration } from '../base/duration.js';
import type { Flip, RunRecord } from '../model/record.js';
import { currentAck } from '../oncall/ack.js';
import { clip, oneLine } from '../render/fields.js';
import { escapeMrkdwn } from '../render/slack.js';

/** An ephemeral answer to a slash command (only the person who typed it sees it). */
export interface SlashAnswer {
  readonly response_type: 'ephemeral';
  readonly text: string;
  readonly blocks?: unknown[];
}

/** Slack cuts a section's text at 3,000 characters; a table longer than this is cut at a row. */
const SECTION_MAX = 2900;

/** Text safe inside a Slack code block: escaped, one line, no backtick that could close the block. */
function safe(text: string, max: number): string {
  return escapeMrkdwn(clip(oneLine(text).replace(/`/g, "'"), max));
}

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });

function stepOf({ facts: { step, totalSteps } }: RunRecord): string {
  return step === undefined ? '-' : `${step}${totalSteps ? `/${totalSteps}` : ''}`;
}

/** The live runs, one line each (the most urgent first), as a code block that fits Slack's width. */
export function statusAnswer(records: readonly RunRecord[], now: number): SlashAnswer {
  if (records.length === 0) return { response_type: 'ephemeral', text: 'trainwatch: no live runs' };
  const order = (r: RunRecord) => (['FAILED', 'TIMED_OUT', 'STALLED', 'WARNING'].includes(r.state) ? 0 : 1);
  const sorted = [...records].sort((a, b) => order(a) - order(b) || a.runId.localeCompare(b.runId));
  const rows = sorted.map((r) => {
    const ack = currentAck(r);
    return [
      r.runId,
      `${r.state}${r.errorType ? ` (${r.errorType})` : ''}`,
      String(r.attempt),
      stepOf(r),
      `${formatDuration(Math.max(0, now - r.updatedAt))} ago`,
      `${r.reason}${ack ? ` [ack: ${ack.by}]` : ''}`,
    ];
  });
  const header = ['RUN', 'STATE', 'TRY', 'STEP', 'UPDATED', 'REASON'];
  const cells = [header, ...rows].map((row) => row.map((c, i) => safe(c, i === 5 ? 60 : 40)));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const lines = cells.map((row) => row.map((c, i) => (i < 5 ? c.padEnd(widths[i]!) : c)).join('  '));
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > SECTION_MAX - 40) break;
    kept.push(line);
    size += line.length + 1;
  }
  const more = lines.length > kept.length ? `\n… and ${lines.length - kept.length} more` : '';
  const unhealthy = records.filter((r) => order(r) === 0).length;
  const text = `trainwatch: ${records.length} live run(s), ${unhealthy} unhealthy`;
  return {
    response_type: 'ephemeral',
    text,
    blocks: [section(`*${text}*`), section(`\`\`\`${kept.join('\n')}${more}\`\`\``)],
  };
}

/** One run: its state, reason, progress and who acknowledged it, then its latest history. */
export function runAnswer(r: RunRecord, history: readonly Flip[], now: number): SlashAnswer {
  const ack = currentAck(r);
  const facts = [
    `state:    ${r.state}${r.errorType ? ` (${r.errorType})` : ''} for ${formatDuration(Math.max(0, now - r.since))}`,
    `attempt:  ${r.attempt}`,
    `step:     ${stepOf(r)}`,
    `reason:   ${r.reason}`,
    ...(ack ? [`ack:      ${ack.by}${ack.note ? `: ${ack.note}` : ''}`] : []),
    ...(r.ended ? [`ended:    ${formatDuration(Math.max(0, now - r.ended.at))} ago`] : []),
  ].map((l) => safe(l, 300));
  const flips = history
    .slice(0, 10)
    .map((f) =>
      safe(
        `${new Date(f.at).toISOString().slice(0, 19)}Z  ${f.from ?? '(new)'} -> ${f.to}  ${f.reason}`,
        200,
      ),
    );
  const text = `trainwatch: ${r.runId} is ${r.state}`;
  return {
    response_type: 'ephemeral',
    text: safe(text, 200),
    blocks: [
      section(`*${safe(text, 200)}*`),
      section(`\`\`\`${facts.join('\n')}\`\`\``),
      ...(flips.length ? [section(`History (newest first):\n\`\`\`${flips.join('\n')}\`\`\``)] : []),
    ],
  };
}
