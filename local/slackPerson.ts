import { randomBytes } from 'node:crypto';
import { WebClient } from '@slack/web-api';
import type { RunRecord } from '../lambdas/core/model/record.js';
import { ACTION, parseButtonValue } from '../lambdas/core/slack/index.js';
import type { SlackApi, SlackMessage } from './slackApi.js';
import { clickPayload, sendSigned } from './slackEndpointServer.js';
import { renderSlack } from './slackReceiver.js';

/** The local mode's person on call, as Slack knows them. */
export const LOCAL_SLACK_USER = { id: 'U0LOCAL01', username: 'local-oncall' } as const;
/** The local Slack app's channel. */
export const LOCAL_CHANNEL = 'C0TRAINWATCH';

/** A signing secret for this local run (Slack's are 32 hex characters). */
export function localSigningSecret(): string {
  return randomBytes(16).toString('hex');
}

type Button = { action_id?: string; value?: string };
const buttonsOf = (m: SlackMessage) =>
  m.blocks.flatMap((b) => ((b as { elements?: Button[] }).elements ?? []) as Button[]);

/** The latest message whose Acknowledge button is about `r` as it is now (its state, since when). */
function ackable(api: SlackApi, r: RunRecord): SlackMessage | undefined {
  return [...api.messages].reverse().find((m) =>
    buttonsOf(m).some((b) => {
      const t = b.action_id === ACTION.ack && b.value ? parseButtonValue(b.value) : undefined;
      return t?.runId === r.runId && t.state === r.state && t.since === r.since;
    }),
  );
}

/**
 * The person clicks Acknowledge on the run's latest alert in Slack: a `block_actions` payload, signed with
 * the app's secret, POSTed to the local endpoint (the Lambda handler behind HTTP). Returns what happened.
 */
export async function clickAcknowledge(
  api: SlackApi,
  endpointUrl: string,
  secret: string,
  r: RunRecord,
): Promise<string | undefined> {
  const m = ackable(api, r);
  if (!m) return undefined;
  const res = await sendSigned(
    endpointUrl,
    clickPayload(m, ACTION.ack, LOCAL_SLACK_USER, api.responseUrl()),
    {
      secret,
    },
  );
  return `Slack: @${LOCAL_SLACK_USER.username} clicked Acknowledge on ${r.runId}'s alert (a signed request to the local endpoint: HTTP ${res.status})`;
}

/** A run's whole Slack thread, read back with the official client: each message's headline, in order. */
export async function threadOf(api: SlackApi, runId: string): Promise<string[]> {
  const client = new WebClient(api.token, { slackApiUrl: api.apiUrl });
  const top = ((await client.conversations.history({ channel: LOCAL_CHANNEL })).messages ??
    []) as SlackMessage[];
  const parents = top.filter((m) => !m.thread_ts && m.text.includes(` ${runId} — `));
  const out: string[] = [];
  for (const p of parents) {
    const messages = ((await client.conversations.replies({ channel: LOCAL_CHANNEL, ts: p.ts })).messages ??
      []) as SlackMessage[];
    const head = (m: unknown) => renderSlack(m).split('\n')[0]?.replace(/^┃ /, '') ?? '';
    // What the parent said when it was posted (the calls log), and what it shows now (updated in place).
    const posted = api.calls.find(
      (c) =>
        c.method === 'chat.postMessage' && !c.args.thread_ts && String(c.args.text).includes(` ${runId} — `),
    );
    out.push(
      `┃ #trainwatch ${head(posted?.args ?? messages[0])}   ← posted first; the channel's line now shows: ${head(messages[0])}`,
    );
    for (const m of messages.slice(1))
      out.push(`┃   ↳ ${head(m)}${m.reply_broadcast ? '   (also sent to the channel: it got worse)' : ''}`);
  }
  return out;
}
