import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../../config.js';
import type { Notifier } from '../../core/model/ports.js';
import { sdkConfig } from '../aws/clients.js';
import { type ClientSource, once } from '../aws/lazy.js';
import { EventBridgeNotifier } from './eventBridge/eventBridgeNotifier.js';
import { PagerDutyNotifier } from './pagerDuty/pagerDutyNotifier.js';
import { pagerDutyRoutingKey } from './pagerDuty/pagerDutyRoutingKey.js';
import { LazySlackNotifier, loadAppChannel, loadWebhookChannel } from './slack/slackLoader.js';
import type { SlackNotifierOptions } from './slack/slackNotifier.js';
import { SnsNotifier } from './sns/snsNotifier.js';

/** The SDK clients the channels use; the app passes its own, tests may pass theirs. */
export interface NotifierClients {
  readonly sns?: ClientSource<SNSClient>;
  readonly ssm?: ClientSource<SSMClient>;
  readonly events?: ClientSource<EventBridgeClient>;
  /** The Slack app keeps each run's thread on its item (adapters/stores/dynamoSlackThreads.ts). */
  readonly ddb?: DynamoDBDocumentClient;
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

  // Slack: the app (threads, buttons) when a bot token and a channel are configured, else the webhook; the
  // channel's code is loaded on the first Slack alert (adapters/channels/slack/slackLoader.ts), not at cold start.
  const app = config.slack;
  const { ddb } = clients;
  if ((app.botToken || app.botTokenParam) && app.channel && ddb) {
    const settings = {
      token: app.botToken,
      tokenParam: app.botTokenParam,
      channel: app.channel,
      apiUrl: app.apiUrl,
      buttons: Boolean(app.signingSecret || app.signingSecretParam),
      restart: app.restartBy.length > 0,
      table: config.table,
      timeoutMs: slack.timeoutMs,
    };
    const fromSsm = app.botTokenParam && !app.botToken ? ssm : undefined;
    notifiers.push(
      new LazySlackNotifier(async () =>
        (await loadAppChannel()).appNotifier(settings, { ssm: fromSsm, ddb }),
      ),
    );
  } else if (config.slackWebhookUrl || config.slackWebhookParam) {
    const webhook = { url: config.slackWebhookUrl, param: config.slackWebhookParam };
    notifiers.push(
      new LazySlackNotifier(async () => (await loadWebhookChannel()).webhookNotifier(webhook, ssm, slack)),
    );
  }

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
