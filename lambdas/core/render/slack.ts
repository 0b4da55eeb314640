import type { Alert } from '../model/alert.js';
import type { RunState } from '../model/states.js';
import { alertFields, clip, oneLine } from './fields.js';
import { isOncallAlert, oncallHeadline, runLines } from './oncall.js';

/** Slack's Block Kit limits that our content can reach. */
export const SLACK_LIMITS = {
  headerText: 150,
  sectionText: 3000,
  fieldText: 2000,
  fields: 10,
  contextText: 2000,
  blocks: 50,
  buttonUrl: 3000,
  fallbackText: 3000,
} as const;

const EMOJI: Readonly<Record<RunState, string>> = {
  PENDING: ':hourglass_flowing_sand:',
  RUNNING: ':large_green_circle:',
  WARNING: ':warning:',
  STALLED: ':snail:',
  TIMED_OUT: ':alarm_clock:',
  FAILED: ':x:',
  SUCCEEDED: ':white_check_mark:',
  RESTARTING: ':arrows_counterclockwise:',
};

/** Escapes the three characters Slack mrkdwn treats as control; this also defuses `<!channel>` and links. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes then clips, never cutting an `&amp;` entity in half. */
function mrkdwn(text: string, max: number): string {
  // Escaping only lengthens text, so a raw cut just past `max` loses nothing that could be shown.
  const escaped = escapeMrkdwn(text.length > max ? text.slice(0, max + 1) : text);
  if (escaped.length <= max) return escaped;
  return `${clip(escaped, max)
    .slice(0, -1)
    .replace(/&[a-z]*$/, '')}…`;
}

/** Inline code: a backtick inside would end the span early, so it becomes a quote. */
function code(text: string, max: number): string {
  return `\`${mrkdwn(text.replace(/`/g, "'"), max - 2)}\``;
}

function section(text: string): unknown {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

/** The headline: `:x: run-42 — FAILED`, marked when it is a reminder or a diagnosis follow-up. */
function headline(alert: Alert): string {
  if (isOncallAlert(alert)) return `${EMOJI[alert.state]} ${oncallHeadline(alert)}`; // on-call lifecycle
  const still =
    alert.kind === 'reminder'
      ? ' (reminder)'
      : alert.kind === 'remediation' && alert.state !== 'RESTARTING'
        ? ' (diagnosis)'
        : '';
  return `${EMOJI[alert.state]} ${alert.runId} — ${alert.state}${still}`;
}

/**
 * A Slack message (Block Kit) for an alert, within Slack's limits; `text` is the fallback. `buttons` (the
 * Slack app's on-call buttons, core/slack/buttons.ts) join the console link in the actions block.
 */
export function slackMessage(
  alert: Alert,
  buttons: readonly unknown[] = [],
): { text: string; blocks: unknown[] } {
  const reason = alert.reason.trim() || 'No reason given';
  const blocks: unknown[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: clip(headline(alert), SLACK_LIMITS.headerText), emoji: true },
    },
    section(mrkdwn(reason, SLACK_LIMITS.sectionText)),
    section(`*Action:* ${mrkdwn(alert.action, SLACK_LIMITS.sectionText - 12)}`),
  ];

  // on-call lifecycle: a grouped alert or a summary lists its runs instead of one run's facts
  const fields = (alert.runs ? [] : alertFields(alert)).slice(0, SLACK_LIMITS.fields).map((f) => {
    const label = `*${f.label}*\n`;
    const room = SLACK_LIMITS.fieldText - label.length;
    return { type: 'mrkdwn', text: label + (f.code ? code(f.value, room) : mrkdwn(f.value, room)) };
  });
  if (fields.length > 0) blocks.push({ type: 'section', fields });

  // on-call lifecycle: the runs a grouped alert or a silence summary stands for
  const listed = runLines(alert);
  if (listed.length > 0)
    blocks.push(section(mrkdwn(listed.map((l) => `• ${l}`).join('\n'), SLACK_LIMITS.sectionText)));

  const details = (alert.details ?? []).map((d) => d.trim()).filter(Boolean);
  if (details.length > 0)
    blocks.push(section(mrkdwn(details.map((d) => `• ${d}`).join('\n'), SLACK_LIMITS.sectionText)));

  const context: unknown[] = [];
  if (alert.lastLogLine?.trim())
    context.push({ type: 'mrkdwn', text: code(oneLine(alert.lastLogLine), SLACK_LIMITS.contextText) });
  context.push({ type: 'mrkdwn', text: mrkdwn(alert.s3Uri, SLACK_LIMITS.contextText) });
  blocks.push({ type: 'context', elements: context });

  // A button must carry a valid URL or Slack rejects the whole message.
  const link =
    /^https?:\/\/\S+$/.test(alert.consoleUrl) && alert.consoleUrl.length <= SLACK_LIMITS.buttonUrl
      ? [
          {
            type: 'button',
            text: { type: 'plain_text', text: 'Open in AWS console', emoji: true },
            url: alert.consoleUrl,
          },
        ]
      : [];
  if (link.length + buttons.length > 0) blocks.push({ type: 'actions', elements: [...buttons, ...link] });

  const text = mrkdwn(`${headline(alert)}: ${oneLine(reason)}`, SLACK_LIMITS.fallbackText);
  return { text, blocks: blocks.slice(0, SLACK_LIMITS.blocks) };
}
