import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lambdas/config.js';
import { formatDuration, parseDuration } from '../../lambdas/core/base/duration.js';
import { ConfigError } from '../../lambdas/core/base/errors.js';

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
    // toMatchObject: other settings (remediation) are tested with their own loader.
    const c = loadConfig(BASE);
    for (const unset of [
      'topicArn',
      'eventBus',
      'slackWebhookUrl',
      'slackWebhookParam',
      'remindEveryMs',
      'endpoint',
    ])
      expect(c[unset as keyof typeof c]).toBeUndefined();
    expect(c).toMatchObject({
      bucket: 'heartbeats',
      prefix: 'training-runs',
      table: 'runs',
      thresholds: {
        // unset: learned from each run (core/detection), fixed 10m / 30m until it has a history
        staleAfterMs: undefined,
        stallAfterMs: undefined,
        startupGraceMs: 15 * M,
        phaseStaleAfterMs: { setup: 30 * M, checkpointing: 30 * M, evaluation: 30 * M, validation: 30 * M },
      },
      historyTtlDays: 90,
      concurrency: 16,
      region: 'us-east-1',
    });
    expect(c.thresholds.phaseStaleAfterMs).toEqual({
      setup: 30 * M,
      checkpointing: 30 * M,
      evaluation: 30 * M,
      validation: 30 * M,
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
    ['TRAINWATCH_GROUP_MIN', '-1'],
    ['TRAINWATCH_GROUP_MIN', 'some'],
    ['TRAINWATCH_PAGERDUTY_URL', 'events.pagerduty.com/v2/enqueue'],
  ])('names an invalid %s (%j)', (name, value) => {
    const err = configError({ ...BASE, [name]: value });
    expect(err.message).toContain(name);
    expect(err.context).toEqual({ name });
  });

  it('reads the on-call settings: group size (default 3, 0 turns grouping off) and PagerDuty', () => {
    expect(loadConfig(BASE)).toMatchObject({
      groupMin: 3,
      pagerDutyRoutingKey: undefined,
      pagerDutyUrl: undefined,
    });
    expect(
      loadConfig({
        ...BASE,
        TRAINWATCH_GROUP_MIN: '0',
        TRAINWATCH_PAGERDUTY_ROUTING_KEY_PARAM: '/trainwatch/pagerduty',
        TRAINWATCH_PAGERDUTY_URL: 'http://127.0.0.1:9/v2/enqueue',
      }),
    ).toMatchObject({
      groupMin: 0,
      pagerDutyRoutingKeyParam: '/trainwatch/pagerduty',
      pagerDutyUrl: 'http://127.0.0.1:9/v2/enqueue',
    });
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

describe('remediation.eks', () => {
  const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n').toString(
    'base64',
  );
  const cluster = (over: Record<string, unknown> = {}) => ({
    name: 'ml-prod',
    endpoint: 'https://ABCDEF0123.gr7.us-east-1.eks.amazonaws.com',
    certificateAuthority: CA,
    namespaces: ['training'],
    ...over,
  });
  const withClusters = (v: unknown) => ({ ...BASE, TRAINWATCH_EKS_CLUSTERS: JSON.stringify(v) });

  it('is off by default: no cluster, gangs restarted by deleting their pods', () => {
    expect(loadConfig(BASE).remediation.eks).toEqual({ clusters: [], gangRestart: 'pods' });
  });

  it('reads the clusters (JSON, or YAML outside Lambda) and the gang restart', () => {
    const c = loadConfig({
      ...withClusters([
        cluster({ region: 'eu-west-1', namespaces: ['training', 'team-a', 'training'] }),
        cluster({ name: 'ml_dev', endpoint: 'https://10.0.0.1:6443/', group: 'ml:trainwatch' }),
      ]),
      TRAINWATCH_EKS_GANG_RESTART: 'suspend',
    });
    expect(c.remediation.eks.gangRestart).toBe('suspend');
    expect(c.remediation.eks.clusters).toEqual([
      {
        ...cluster(),
        region: 'eu-west-1',
        namespaces: ['training', 'team-a'],
        group: 'trainwatch:remediation',
      },
      { ...cluster({ name: 'ml_dev', endpoint: 'https://10.0.0.1:6443' }), group: 'ml:trainwatch' },
    ]);
    const yaml = `- name: ml-prod\n  endpoint: ${cluster().endpoint}\n  certificateAuthority: ${CA}\n  namespaces: [training]\n`;
    expect(loadConfig({ ...BASE, TRAINWATCH_EKS_CLUSTERS: yaml }).remediation.eks.clusters).toEqual([
      { ...cluster(), group: 'trainwatch:remediation' },
    ]);
  });

  it.each([
    ['not JSON', '[{name:', /TRAINWATCH_EKS_CLUSTERS is not JSON/],
    ['not a list', '{"name":"ml-prod"}', /TRAINWATCH_EKS_CLUSTERS: must be a list of clusters/],
    [
      'an http endpoint',
      withClusters([cluster({ endpoint: 'http://x.eks.amazonaws.com' })]),
      /cluster 0 \(ml-prod\): endpoint "http:\/\/x\.eks\.amazonaws\.com" is not an https URL/,
    ],
    [
      'an endpoint with a path',
      withClusters([cluster({ endpoint: 'https://x.example/api' })]),
      /endpoint .* is not an https URL with only a host/,
    ],
    [
      'not a URL',
      withClusters([cluster({ endpoint: 'eks.amazonaws.com' })]),
      /endpoint "eks\.amazonaws\.com" is not an https URL/,
    ],
    [
      'an unknown key',
      withClusters([cluster({ namespace: 'training' })]),
      /cluster 0 \(ml-prod\): unknown key "namespace" \(the keys are name, endpoint, certificateAuthority, certificateAuthorityParam, region, namespaces, group\)/,
    ],
    [
      'empty namespaces',
      withClusters([cluster({ namespaces: [] })]),
      /namespaces must list at least one namespace/,
    ],
    [
      'no namespaces',
      withClusters([cluster({ namespaces: undefined })]),
      /namespaces must list at least one namespace/,
    ],
    [
      'a namespace that is not a Kubernetes name',
      withClusters([cluster({ namespaces: ['Team_A'] })]),
      /namespace "Team_A" is not a Kubernetes namespace/,
    ],
    [
      'a cluster name EKS would refuse',
      withClusters([cluster({ name: 'ml prod' })]),
      /cluster 0: name "ml prod" is not an EKS cluster name/,
    ],
    [
      'no name',
      withClusters([cluster({ name: undefined })]),
      /cluster 0: name null is not an EKS cluster name/,
    ],
    [
      'a CA that is not base64 PEM',
      withClusters([cluster({ certificateAuthority: 'not-a-cert' })]),
      /certificateAuthority is not base64 of a PEM certificate/,
    ],
    [
      'both a CA and its parameter',
      withClusters([cluster({ certificateAuthorityParam: '/trainwatch/ca' })]),
      /cluster 0 \(ml-prod\): give certificateAuthority or certificateAuthorityParam, not both/,
    ],
    [
      'neither a CA nor its parameter',
      withClusters([cluster({ certificateAuthority: undefined })]),
      /cluster 0 \(ml-prod\): needs certificateAuthority \(the CA itself\) or certificateAuthorityParam/,
    ],
    [
      'a CA parameter that is not an SSM parameter name',
      withClusters([
        cluster({ certificateAuthority: undefined, certificateAuthorityParam: '/trainwatch//ca x' }),
      ]),
      /cluster 0 \(ml-prod\): certificateAuthorityParam "\/trainwatch\/\/ca x" is not an SSM parameter name/,
    ],
    [
      'an empty CA parameter',
      withClusters([cluster({ certificateAuthority: undefined, certificateAuthorityParam: '' })]),
      /certificateAuthorityParam "" is not an SSM parameter name/,
    ],
    ['a bad region', withClusters([cluster({ region: 'Europe' })]), /region "Europe" is not an AWS region/],
    [
      'a system: group',
      withClusters([cluster({ group: 'system:masters' })]),
      /group "system:masters" is one of Kubernetes' own/,
    ],
    ['a cluster listed twice', withClusters([cluster(), cluster()]), /cluster ml-prod is listed twice/],
  ])('refuses %s, naming the cluster and the field', (_what, env, message) => {
    const err = configError(typeof env === 'string' ? { ...BASE, TRAINWATCH_EKS_CLUSTERS: env } : env);
    expect(err.message).toMatch(message);
    expect(err.context).toEqual({ name: 'TRAINWATCH_EKS_CLUSTERS' });
  });

  it("takes the CA as the name of its SSM parameter instead (the stack's way)", () => {
    const param = '/trainwatch/Trainwatch/eks/ml-prod/certificate-authority';
    const c = loadConfig(
      withClusters([cluster({ certificateAuthority: undefined, certificateAuthorityParam: param })]),
    );
    const { certificateAuthority: _, ...rest } = cluster();
    expect(c.remediation.eks.clusters).toEqual([
      { ...rest, certificateAuthorityParam: param, group: 'trainwatch:remediation' },
    ]);
    expect(c.remediation.eks.clusters[0]).not.toHaveProperty('certificateAuthority');
  });

  it('refuses a gang restart other than pods or suspend', () => {
    const err = configError({ ...BASE, TRAINWATCH_EKS_GANG_RESTART: 'delete' });
    expect(err.message).toBe('TRAINWATCH_EKS_GANG_RESTART="delete" is not "pods" or "suspend"');
  });
});

describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['90s', 90_000],
    ['90', 90_000],
    ['1.5m', 90_000],
    [' 10 m ', 600_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
  ])('parses %j', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([[''], ['0'], ['0m'], ['-5m'], ['5 minutes'], ['1w'], ['m'], ['1e3s'], ['5m30s']])(
    'rejects %j',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it.each([
    [0, '0s'],
    [-5000, '0s'],
    [499, '0s'],
    [45_000, '45s'],
    [60_000, '1m'],
    [61_000, '1m 1s'],
    [3 * 3_600_000 + 12 * 60_000 + 5_000, '3h 12m'],
    [3_600_000 + 5_000, '1h'],
    [2 * 86_400_000 + 3_600_000, '2d 1h'],
  ])('formats %d ms as %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
