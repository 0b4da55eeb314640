// The Slack app's channel (threads, buttons), loaded on the first Slack alert (adapters/channels/slack/slackLoader.ts): in
// the Lambda bundles it is its own file, `slack-app.mjs` beside `index.mjs` (lib/functions.ts), so the Web
// API client is loaded only by a function that posts as the app, and only once it has something to say.
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeliveryError } from '../../../core/base/errors.js';
import type { Notifier } from '../../../core/model/ports.js';
import type { ClientSource } from '../../aws/lazy.js';
import { secretResolver } from '../../aws/secureString.js';
import { DynamoSlackThreads } from '../../stores/dynamoSlackThreads.js';
import { SlackAppNotifier } from './slackAppNotifier.js';
import { webClient } from './slackWebApi.js';

/** The Slack app's settings (the runtime configuration's Slack part). */
export interface SlackAppSettings {
  readonly token?: string;
  readonly tokenParam?: string;
  readonly channel: string;
  readonly apiUrl?: string;
  /** The endpoint exists: draw the on-call buttons. */
  readonly buttons: boolean;
  /** Someone may press Restart now: draw it where remediation offered it. */
  readonly restart: boolean;
  readonly table: string;
  /** Per request. @default 5000 */
  readonly timeoutMs?: number;
}

function checkedToken(value: string | undefined, where: string): string {
  const token = value?.trim();
  // Never echo the value: it is a secret.
  if (!token || !/^xox[a-z]-[A-Za-z0-9-]+$/.test(token))
    throw new DeliveryError(`slack: ${where} does not hold a Slack bot token`, true, { where });
  return token;
}

/** The Slack app channel: the bot token itself (local mode) or its SSM SecureString (Lambda); undefined: none. */
export function appNotifier(
  s: SlackAppSettings,
  clients: { readonly ssm?: ClientSource<SSMClient>; readonly ddb: DynamoDBDocumentClient },
): Notifier | undefined {
  const token = secretResolver(
    { value: s.token, param: s.tokenParam },
    'slack',
    'TRAINWATCH_SLACK_BOT_TOKEN',
    checkedToken,
    s.tokenParam && !s.token ? clients.ssm : undefined,
  );
  if (!token) return undefined;
  let made: { token: string; client: ReturnType<typeof webClient> } | undefined;
  return new SlackAppNotifier({
    channel: s.channel,
    // One client per token: the token may change when the SSM secret is rotated.
    client: async () => {
      const t = await token();
      if (made?.token !== t) made = { token: t, client: webClient(t, s.apiUrl, s.timeoutMs) };
      return made.client;
    },
    threads: new DynamoSlackThreads(s.table, clients.ddb),
    buttons: s.buttons ? { restart: s.restart } : undefined,
  });
}
