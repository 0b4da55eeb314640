import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lambdas/config.js';
import { ConfigError } from '../../lambdas/core/errors.js';

const M = 60_000;
const BASE = { TRAINWATCH_BUCKET: 'heartbeats', TRAINWATCH_TABLE: 'runs' };

/** The ConfigError that loading `env` throws (fails the test if it does not throw one). */
function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('loadConfig did not throw');
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    expect(loadConfig(BASE)).toEqual({
      bucket: 'heartbeats',
      prefix: 'training-runs',
      table: 'runs',
      topicArn: undefined,
      eventBus: undefined,
      slackWebhookUrl: undefined,
      slackWebhookParam: undefined,
      thresholds: {
        staleAfterMs: 10 * M,
        stallAfterMs: 30 * M,
        startupGraceMs: 15 * M,
        phaseStaleAfterMs: { setup: 30 * M, checkpointing: 30 * M },
      },
      remindEveryMs: undefined,
      historyTtlDays: 90,
      concurrency: 16,
      region: 'us-east-1',
      endpoint: undefined,
    });
  });

  it('reads every setting', () => {
    const c = loadConfig({
      ...BASE,
      TRAINWATCH_PREFIX: '/ml/runs/',
      TRAINWATCH_TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:train-alerts',
      TRAINWATCH_EVENT_BUS: 'default',
      TRAINWATCH_SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x',
      TRAINWATCH_SLACK_WEBHOOK_PARAM: '/trainwatch/slack',
      TRAINWATCH_STALE_AFTER: '5m',
      TRAINWATCH_STALL_AFTER: '1h',
      TRAINWATCH_STARTUP_GRACE: '900',
      TRAINWATCH_PHASE_STALE_AFTER: ' eval = 20m , checkpointing=2h ',
      TRAINWATCH_REMIND_EVERY: '4h',
      TRAINWATCH_HISTORY_TTL_DAYS: '30',
      TRAINWATCH_CONCURRENCY: '64',
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL: 'http://127.0.0.1:5000',
    });
    expect(c).toMatchObject({
      prefix: 'ml/runs',
      topicArn: 'arn:aws:sns:eu-west-1:123456789012:train-alerts',
      eventBus: 'default',
      slackWebhookUrl: 'https://hooks.slack.com/services/T/B/x',
      slackWebhookParam: '/trainwatch/slack',
      thresholds: {
        staleAfterMs: 5 * M,
        stallAfterMs: 60 * M,
        startupGraceMs: 15 * M,
        phaseStaleAfterMs: { eval: 20 * M, checkpointing: 120 * M },
      },
      remindEveryMs: 4 * 60 * M,
      historyTtlDays: 30,
      concurrency: 64,
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:5000',
    });
  });

  it('falls back to AWS_DEFAULT_REGION', () => {
    expect(loadConfig({ ...BASE, AWS_DEFAULT_REGION: 'ap-south-1' }).region).toBe('ap-south-1');
  });

  it('an empty phase list turns phase thresholds off', () => {
    expect(loadConfig({ ...BASE, TRAINWATCH_PHASE_STALE_AFTER: '' }).thresholds.phaseStaleAfterMs).toEqual(
      {},
    );
  });

  it.each(['TRAINWATCH_BUCKET', 'TRAINWATCH_TABLE'])('names the missing required setting %s', (name) => {
    const err = configError({ ...BASE, [name]: undefined });
    expect(err.message).toBe(`${name} is required but not set`);
    expect(err.context).toEqual({ name });
    expect(configError({ ...BASE, [name]: '   ' }).message).toContain(name);
  });

  it.each([
    ['TRAINWATCH_STALE_AFTER', 'ten minutes'],
    ['TRAINWATCH_STALL_AFTER', '-5m'],
    ['TRAINWATCH_STARTUP_GRACE', '0s'],
    ['TRAINWATCH_REMIND_EVERY', '1w'],
    ['TRAINWATCH_PHASE_STALE_AFTER', 'checkpointing'],
    ['TRAINWATCH_PHASE_STALE_AFTER', 'checkpointing=forever'],
    ['TRAINWATCH_PHASE_STALE_AFTER', '=30m'],
    ['TRAINWATCH_CONCURRENCY', '0'],
    ['TRAINWATCH_CONCURRENCY', '257'],
    ['TRAINWATCH_CONCURRENCY', '2.5'],
    ['TRAINWATCH_CONCURRENCY', 'many'],
    ['TRAINWATCH_HISTORY_TTL_DAYS', '0'],
    ['TRAINWATCH_TOPIC_ARN', 'train-alerts'],
    ['TRAINWATCH_TOPIC_ARN', 'arn:aws:sqs:us-east-1:123456789012:q'],
    ['TRAINWATCH_TOPIC_ARN', 'arn:aws:sns:us-east-1:1234:t'],
    ['TRAINWATCH_SLACK_WEBHOOK_URL', 'hooks.slack.com/services/x'],
    ['TRAINWATCH_SLACK_WEBHOOK_URL', 'https://hooks.slack.com/a b'],
    ['TRAINWATCH_PREFIX', 'runs?x'],
  ])('names an invalid %s (%j)', (name, value) => {
    const err = configError({ ...BASE, [name]: value });
    expect(err.message).toContain(name);
    expect(err.context).toEqual({ name });
  });

  it('accepts ARNs of other partitions', () => {
    const arn = 'arn:aws-us-gov:sns:us-gov-west-1:123456789012:alerts';
    expect(loadConfig({ ...BASE, TRAINWATCH_TOPIC_ARN: arn }).topicArn).toBe(arn);
  });

  it('does not echo the Slack webhook URL (a secret) in its error', () => {
    const err = configError({ ...BASE, TRAINWATCH_SLACK_WEBHOOK_URL: 'ftp://secret-token' });
    expect(err.message).not.toContain('secret-token');
  });
});
