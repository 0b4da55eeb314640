import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { Config } from '../config.js';
import type { Notifier } from '../core/ports.js';
import { EventBridgeNotifier } from './eventBridgeNotifier.js';
import { PagerDutyNotifier } from './pagerDutyNotifier.js';
import { pagerDutyRoutingKey } from './pagerDutyRoutingKey.js';
import { SlackNotifier, type SlackNotifierOptions } from './slackNotifier.js';
import { slackWebhookUrl } from './slackWebhookUrl.js';
import { SnsNotifier } from './snsNotifier.js';

/** The SDK clients the channels use; `awsClients(config)` provides them, tests may pass their own. */
export interface NotifierClients {
  readonly sns?: SNSClient;
  readonly ssm?: SSMClient;
  readonly events?: EventBridgeClient;
}

/** The channels the configuration asks for: Slack, SNS and PagerDuty when set, EventBridge always. */
export function buildNotifiers(
  config: Config,
  clients: NotifierClients = {},
  slack: SlackNotifierOptions = {},
): Notifier[] {
  // Clients missing from `clients` are made here, for the configured region and endpoint, only when needed.
  const sdk = { region: config.region, ...(config.endpoint ? { endpoint: config.endpoint } : {}) };
  const notifiers: Notifier[] = [];

  const slackUrl = slackWebhookUrl(
    { url: config.slackWebhookUrl, param: config.slackWebhookParam },
    config.slackWebhookParam && !config.slackWebhookUrl ? (clients.ssm ?? new SSMClient(sdk)) : undefined,
  );
  if (slackUrl) notifiers.push(new SlackNotifier(slackUrl, slack));

  if (config.topicArn) notifiers.push(new SnsNotifier(config.topicArn, clients.sns ?? new SNSClient(sdk)));

  // on-call lifecycle: PagerDuty when a routing key (or its SSM parameter) is configured
  const pdKey = pagerDutyRoutingKey(
    { key: config.pagerDutyRoutingKey, param: config.pagerDutyRoutingKeyParam },
    config.pagerDutyRoutingKeyParam && !config.pagerDutyRoutingKey
      ? (clients.ssm ?? new SSMClient(sdk))
      : undefined,
  );
  if (pdKey) notifiers.push(new PagerDutyNotifier(pdKey, { url: config.pagerDutyUrl }));

  notifiers.push(new EventBridgeNotifier(config.eventBus, clients.events ?? new EventBridgeClient(sdk)));
  return notifiers;
}
