import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signSlackRequest } from '../lambdas/adapters/channels/slack/slackSignature.js';
import { type ButtonTarget, buttonValue } from '../lambdas/core/slack/index.js';
import { httpRequest } from '../lambdas/events/slackRequest.js';
import type { SlackEndpointDeps } from '../lambdas/slack/deps.js';
import { handleSlack } from '../lambdas/slack/endpoint.js';

/** The Slack endpoint's handler behind a local HTTP server, shaped as a Lambda function URL hands requests over. */
export interface SlackEndpointServer {
  readonly url: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Serves `deps` on a free loopback port: each request becomes a function URL event (payload 2.0). */
export async function startSlackEndpoint(
  deps: SlackEndpointDeps,
  now: () => number = Date.now,
): Promise<SlackEndpointServer> {
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const event = { headers: req.headers as Record<string, string>, body, isBase64Encoded: false };
    try {
      const r = await handleSlack(deps, httpRequest(event), now());
      res.writeHead(r.statusCode, r.headers ?? {}).end(r.body);
    } catch (e) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(e));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** What Slack sends and how: the signing secret, and optionally a forged timestamp or retry header. */
export interface SendOptions {
  readonly secret: string;
  /** Seconds since the epoch Slack stamps the request with. @default now */
  readonly timestamp?: number;
  /** Slack's retry header (`X-Slack-Retry-Num`). */
  readonly retry?: number;
  /** Sign with this instead (a forged request). */
  readonly signature?: string;
}

/** POSTs a form body to the endpoint as Slack does: form-encoded, timestamped, signed. */
export async function sendSigned(
  url: string,
  form: Record<string, string>,
  o: SendOptions,
): Promise<Response> {
  const body = new URLSearchParams(form).toString();
  const timestamp = o.timestamp ?? Math.floor(Date.now() / 1000);
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': o.signature ?? signSlackRequest(o.secret, timestamp, body),
      ...(o.retry !== undefined
        ? { 'x-slack-retry-num': String(o.retry), 'x-slack-retry-reason': 'http_timeout' }
        : {}),
    },
    body,
  });
}

/** A person clicking a button of a posted message: Slack's `block_actions` payload for it. */
export function clickPayload(
  message: { readonly ts: string; readonly text: string; readonly blocks: readonly unknown[] },
  actionId: string,
  user: { readonly id: string; readonly username: string },
  responseUrl: string,
  triggerId = `${Date.now()}.${Math.random().toString().slice(2, 12)}`,
): Record<string, string> {
  type Button = { action_id?: string; value?: string };
  const buttons = message.blocks.flatMap((b) => ((b as { elements?: Button[] }).elements ?? []) as Button[]);
  const button = buttons.find((e) => e.action_id === actionId);
  if (!button) throw new Error(`message ${message.ts} has no ${actionId} button`);
  const payload = {
    type: 'block_actions',
    user: { id: user.id, username: user.username, name: user.username, team_id: 'T0LOCAL' },
    team: { id: 'T0LOCAL', domain: 'local' },
    trigger_id: triggerId,
    response_url: responseUrl,
    container: { type: 'message', message_ts: message.ts },
    message: { ts: message.ts, text: message.text, blocks: message.blocks },
    actions: [
      { type: 'button', action_id: actionId, value: button.value, action_ts: `${Date.now() / 1000}` },
    ],
  };
  return { payload: JSON.stringify(payload) };
}

/** A button value for a run that was never posted (tests of stale and forged clicks). */
export function valueFor(t: ButtonTarget): string {
  return buttonValue(t);
}
