// The Slack channel's code, loaded on the first Slack alert (adapters/slackLoader.ts): in the Lambda
// bundles it is its own file, `slack.mjs` beside `index.mjs` (lib/functions.ts), so the sweep and the
// sentinel load neither Slack client, nor the Block Kit rendering, at cold start.
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeliveryError } from '../core/errors.js';
import type { Notifier } from '../core/ports.js';
import { DynamoSlackThreads } from './dynamoSlackThreads.js';
import type { ClientSource } from './lazy.js';
import { secretResolver } from './secureString.js';
import { SlackAppNotifier } from './slackAppNotifier.js';
import { SlackNotifier, type SlackNotifierOptions } from './slackNotifier.js';
import { webClient } from './slackWebApi.js';
import { slackWebhookUrl } from './slackWebhookUrl.js';

/** Where the Slack channel's settings come from (the runtime configuration's Slack part). */
export interface SlackChannelSettings {
  readonly webhook: { readonly url?: string; readonly param?: string };
  readonly app: {
    readonly token?: string;
    readonly tokenParam?: string;
    readonly channel?: string;
    readonly apiUrl?: string;
    /** The endpoint exists: draw the on-call buttons. */
    readonly buttons: boolean;
    /** Someone may press Restart now: draw it where remediation offered it. */
    readonly restart: boolean;
  };
  readonly table: string;
}

function checkedToken(value: string | undefined, where: string): string {
  const token = value?.trim();
  // Never echo the value: it is a secret.
  if (!token || !/^xox[a-z]-[A-Za-z0-9-]+$/.test(token))
    throw new DeliveryError(`slack: ${where} does not hold a Slack bot token`, true, { where });
  return token;
}

/**
 * The Slack channel the settings ask for: the Slack app (threads, buttons) when a bot token is configured,
 * else the incoming webhook; undefined when neither is.
 */
export function slackNotifier(
  s: SlackChannelSettings,
  clients: { readonly ssm?: ClientSource<SSMClient>; readonly ddb?: DynamoDBDocumentClient },
  webhook: SlackNotifierOptions = {},
): Notifier | undefined {
  const token = secretResolver(
    { value: s.app.token, param: s.app.tokenParam },
    'slack',
    'TRAINWATCH_SLACK_BOT_TOKEN',
    checkedToken,
    s.app.tokenParam && !s.app.token ? clients.ssm : undefined,
  );
  const ddb = clients.ddb;
  if (token && s.app.channel && ddb) {
    let made: { token: string; client: ReturnType<typeof webClient> } | undefined;
    return new SlackAppNotifier({
      channel: s.app.channel,
      // One client per token: the token may change when the SSM secret is rotated.
      client: async () => {
        const t = await token();
        if (made?.token !== t) made = { token: t, client: webClient(t, s.app.apiUrl, webhook.timeoutMs) };
        return made.client;
      },
      threads: new DynamoSlackThreads(s.table, ddb),
      buttons: s.app.buttons ? { restart: s.app.restart } : undefined,
    });
  }
  const url = slackWebhookUrl(s.webhook, s.webhook.param && !s.webhook.url ? clients.ssm : undefined);
  return url ? new SlackNotifier(url, webhook) : undefined;
}
