// The Slack app's endpoint (one Lambda function URL): every request is checked against Slack's signature
// first; a forged or replayed one gets 401 and a log line, and nothing else is read.
import { checkSlackSignature } from '../adapters/channels/slack/slackSignature.js';
import { type HttpRequest, slackRequest } from '../events/slackRequest.js';
import { handleCommand } from './commands.js';
import type { SlackEndpointDeps } from './deps.js';
import { handleActions } from './interactions.js';

/** What the function URL answers. */
export interface HttpResponse {
  readonly statusCode: number;
  readonly headers?: Record<string, string>;
  readonly body: string;
}

const text = (statusCode: number, body: string): HttpResponse => ({
  statusCode,
  headers: { 'content-type': 'text/plain; charset=utf-8' },
  body,
});

/** Verifies, then routes: a button click (answered on its response_url, 200 empty here) or `/trainwatch`. */
export async function handleSlack(
  d: SlackEndpointDeps,
  req: HttpRequest,
  now: number,
): Promise<HttpResponse> {
  const check = checkSlackSignature(
    await d.signingSecret(),
    req.headers['x-slack-request-timestamp'],
    req.headers['x-slack-signature'],
    req.rawBody,
    now,
  );
  if (!check.ok) {
    d.log('warn', 'slack request refused', {
      reason: check.reason,
      retry: req.headers['x-slack-retry-num'],
      sourceIp: req.headers['x-forwarded-for'],
    });
    return text(401, 'invalid request signature');
  }
  const r = slackRequest(req.rawBody);
  if (r.kind === 'actions') {
    await handleActions(d, r.payload, req.headers['x-slack-retry-num'], now);
    return text(200, '');
  }
  if (r.kind === 'command') {
    const answer = await handleCommand(d, r.command, now);
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) };
  }
  d.log('info', 'slack request ignored', { problem: r.problem });
  return text(200, '');
}
