import { Logger } from '@aws-lambda-powertools/logger';
import { httpRequest } from '../events/slackRequest.js';
import type { SlackEndpointDeps } from '../slack/deps.js';
import { type HttpResponse, handleSlack } from '../slack/endpoint.js';
import { slackEndpointDeps } from '../wiring/slack.js';

const logger = new Logger({ serviceName: 'trainwatch' });
let deps: SlackEndpointDeps | undefined;

/**
 * Lambda entry of the Slack app's endpoint (a function URL): button clicks and `/trainwatch status`, each
 * verified against Slack's signature before anything else is read.
 */
export const handler = async (event: unknown): Promise<HttpResponse> => {
  deps ??= slackEndpointDeps(process.env, (level, message, fields) => logger[level](message, fields ?? {}));
  return handleSlack(deps, httpRequest(event), Date.now());
};
