import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { Config } from '../config.js';
import type { Notifier } from '../core/ports.js';
import { sdkConfig } from './clients.js';
import { EventBridgeNotifier } from './eventBridgeNotifier.js';
import { type ClientSource, once } from './lazy.js';
import { PagerDutyNotifier } from './pagerDutyNotifier.js';
import { pagerDutyRoutingKey } from './pagerDutyRoutingKey.js';
import { SlackNotifier, type SlackNotifierOptions } from './slackNotifier.js';
import { slackWebhookUrl } from './slackWebhookUrl.js';
import { SnsNotifier } from './snsNotifier.js';

/** The SDK clients the channels use; the app passes its own, tests may pass theirs. */
export interface NotifierClients {
  readonly sns?: ClientSource<SNSClient>;
  readonly ssm?: ClientSource<SSMClient>;
  readonly events?: ClientSource<EventBridgeClient>;
}

/** The channels the configuration asks for: Slack and SNS when set, EventBridge always. */
export function buildNotifiers(
  config: Config,
  clients: NotifierClients = {},
  slack: SlackNotifierOptions = {},
): Notifier[] {
  // Clients missing from `clients` are made on first use, for the configured region and endpoint.
  const sdk = sdkConfig({ region: config.region, endpoint: config.endpoint });
  const notifiers: Notifier[] = [];
  // One SSM client for both secrets, loaded only if one of them is read from Parameter Store.
  const ssm = clients.ssm ?? once(async () => new (await import('@aws-sdk/client-ssm')).SSMClient(sdk));

  const slackUrl = slackWebhookUrl(
    { url: config.slackWebhookUrl, param: config.slackWebhookParam },
    config.slackWebhookParam && !config.slackWebhookUrl ? ssm : undefined,
  );
  if (slackUrl) notifiers.push(new SlackNotifier(slackUrl, slack));

  if (config.topicArn)
    notifiers.push(
      new SnsNotifier(
        config.topicArn,
        clients.sns ?? once(async () => new (await import('@aws-sdk/client-sns')).SNSClient(sdk)),
      ),
    );

  // on-call lifecycle: PagerDuty when a routing key (or its SSM parameter) is configured
  const pdKey = pagerDutyRoutingKey(
    { key: config.pagerDutyRoutingKey, param: config.pagerDutyRoutingKeyParam },
    config.pagerDutyRoutingKeyParam && !config.pagerDutyRoutingKey ? ssm : undefined,
  );
  if (pdKey) notifiers.push(new PagerDutyNotifier(pdKey, { url: config.pagerDutyUrl }));

  notifiers.push(
    new EventBridgeNotifier(
      config.eventBus,
      clients.events ??
        once(async () => new (await import('@aws-sdk/client-eventbridge')).EventBridgeClient(sdk)),
    ),
  );
  return notifiers;
}
