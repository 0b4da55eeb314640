import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sdkConfig } from '../adapters/aws/clientConfig.js';
import { type ClientSource, once } from '../adapters/aws/lazy.js';
import { secretResolver } from '../adapters/aws/secureString.js';
import { respond } from '../adapters/channels/slack/slackResponder.js';
import { userGroupMembers } from '../adapters/channels/slack/slackUserGroups.js';
import { webClient } from '../adapters/channels/slack/slackWebApi.js';
import { loadConfig } from '../config.js';
import { ConfigError } from '../core/base/errors.js';
import type { Env } from '../settings/index.js';
import type { Log, SlackEndpointDeps } from '../slack/deps.js';
import { ackStore, linksOf, restartRequests, silenceStore, slackRequests, stateStore } from './stores.js';

function secret(pattern: RegExp, what: string) {
  return (value: string | undefined, where: string): string => {
    const v = value?.trim();
    // Never echo the value: it is a secret.
    if (!v || !pattern.test(v)) throw new ConfigError(`slack: ${where} does not hold a ${what}`);
    return v;
  };
}

/**
 * The endpoint's deps from the environment: DynamoDB at cold start; SSM (the two secrets), EventBridge
 * (restart requests, only where someone may press Restart now) and Slack's client on first use.
 */
export function slackEndpointDeps(
  env: Env,
  log: Log,
  clients: {
    ddb?: DynamoDBDocumentClient;
    ssm?: ClientSource<SSMClient>;
    events?: ClientSource<EventBridgeClient>;
  } = {},
): SlackEndpointDeps {
  const c = loadConfig(env);
  const sdk = sdkConfig({ region: c.region, endpoint: c.endpoint });
  const ddb =
    clients.ddb ??
    DynamoDBDocumentClient.from(new DynamoDBClient(sdk), {
      marshallOptions: { removeUndefinedValues: true },
    });
  const ssm = clients.ssm ?? once(async () => new (await import('@aws-sdk/client-ssm')).SSMClient(sdk));
  const fromSsm = (value?: string, param?: string) => (param && !value ? ssm : undefined);
  const s = c.slack;
  const signingSecret = secretResolver(
    { value: s.signingSecret, param: s.signingSecretParam },
    'slack',
    'TRAINWATCH_SLACK_SIGNING_SECRET',
    secret(/^[A-Za-z0-9]{16,128}$/, 'Slack signing secret'),
    fromSsm(s.signingSecret, s.signingSecretParam),
  );
  if (!signingSecret)
    throw new ConfigError('slack: no signing secret (TRAINWATCH_SLACK_SIGNING_SECRET_PARAM)');
  const token = secretResolver(
    { value: s.botToken, param: s.botTokenParam },
    'slack',
    'TRAINWATCH_SLACK_BOT_TOKEN',
    secret(/^xox[a-z]-[A-Za-z0-9-]+$/, 'Slack bot token'),
    fromSsm(s.botToken, s.botTokenParam),
  );
  const client = once(async () => {
    if (!token) throw new ConfigError('slack: no bot token to read user groups with');
    return webClient(await token(), s.apiUrl);
  });
  const events =
    clients.events ??
    once(async () => new (await import('@aws-sdk/client-eventbridge')).EventBridgeClient(sdk));
  const states = stateStore(c, ddb);
  return {
    signingSecret,
    onCall: {
      states,
      acks: ackStore(c, ddb),
      silences: silenceStore(c, ddb),
      links: linksOf(c),
      // Restart requests only where someone may press Restart now (the role may put them only then).
      restarts: s.restartBy.length ? restartRequests(c, events) : undefined,
    },
    states,
    requests: slackRequests(c, ddb),
    permissions: { ack: s.ackBy, silence: s.silenceBy, restart: s.restartBy },
    membersOf: userGroupMembers(client, Date.now, (m, f) => log('warn', m, f)),
    respond,
    log,
  };
}
