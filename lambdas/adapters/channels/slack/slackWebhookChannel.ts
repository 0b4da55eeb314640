// The incoming-webhook Slack channel, loaded on the first Slack alert (adapters/channels/slack/slackLoader.ts): in the
// Lambda bundles it is its own file, `slack-webhook.mjs` beside `index.mjs` (lib/functions.ts), so no Slack
// client nor the Block Kit rendering is loaded at cold start.
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { Notifier } from '../../../core/model/ports.js';
import type { ClientSource } from '../../aws/lazy.js';
import { SlackNotifier, type SlackNotifierOptions } from './slackNotifier.js';
import { slackWebhookUrl } from './slackWebhookUrl.js';

/** The webhook channel: the URL itself (local mode) or its SSM SecureString (Lambda); undefined: none. */
export function webhookNotifier(
  webhook: { readonly url?: string; readonly param?: string },
  ssm: ClientSource<SSMClient> | undefined,
  options: SlackNotifierOptions = {},
): Notifier | undefined {
  const url = slackWebhookUrl(webhook, webhook.param && !webhook.url ? ssm : undefined);
  return url ? new SlackNotifier(url, options) : undefined;
}
