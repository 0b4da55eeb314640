import { type App, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import type { TrainwatchConfigInput } from '../../lib/config.js';
import { buildStack } from './synth.js';

/** Every acknowledgement in the tree: construct path, rule id, reason. */
function acknowledgements(app: App): { path: string; id: string; reason: string }[] {
  return app.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) =>
        Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
          path: c.node.path,
          id,
          reason,
        })),
      ),
  );
}

const variants: [string, TrainwatchConfigInput][] = [
  ['the default stack', {}],
  ['an imported bucket', { bucket: { name: 'team-ml-artifacts' }, alerts: { emails: ['a@example.com'] } }],
  ['removal policy destroy', { removalPolicy: 'destroy', retention: { logsDays: 7, runsDays: 0 } }],
  [
    'no remediation, 5-minute schedule, no Slack',
    {
      remediation: { enabled: false },
      schedule: '5m',
      alerts: { emails: ['a@example.com'], slackWebhookParameter: '' },
    },
  ],
  [
    'a custom-key Slack parameter and an alarm topic',
    {
      alerts: {
        slackWebhookKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/abcd',
        alarmTopicArn: 'arn:aws:sns:us-east-1:123456789012:ops-alarms',
      },
    },
  ],
  [
    'the Slack app with its endpoint and Restart now, instead of the webhook',
    {
      alerts: { slackWebhookParameter: '' },
      slack: {
        botTokenParameter: '/trainwatch/slack-bot-token',
        signingSecretParameter: '/trainwatch/slack-signing-secret',
        channel: 'C0123ABCD',
        restartBy: ['U0123ABCD', 'S0456EFGH'],
      },
      encryption: { customerManagedKey: true },
    },
  ],
  [
    'EKS clusters for remediation (an access entry on each)',
    {
      remediation: {
        eks: {
          clusters: ['ml-prod', 'ml-dev'].map((name) => ({
            name,
            endpoint: `https://${name}.gr7.us-east-1.eks.amazonaws.com`,
            certificateAuthority: Buffer.from(
              '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
            ).toString('base64'),
            namespaces: ['training'],
          })),
        },
      },
    },
  ],
  [
    'access logs, a customer-managed key and no reserved concurrency',
    {
      accessLogs: { enabled: true },
      encryption: { customerManagedKey: true },
      reservedConcurrency: false,
      removalPolicy: 'destroy',
    },
  ],
];

describe('cdk-nag AwsSolutions', () => {
  it.each(variants)('finds no unacknowledged error or warning in %s', (_name, config) => {
    const { app } = buildStack(config);
    const report = new AwsSolutionsChecks().validateScope(app);
    expect(
      report.violations.map(
        (v) => `${v.severity} ${v.ruleName} ${v.violatingResources.map((r) => r.constructPath)}`,
      ),
    ).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('acknowledges only named findings, each with a specific reason', () => {
    const { app } = buildStack({ bucket: { name: 'team-ml-artifacts' } });
    const acks = acknowledgements(app);
    expect(acks.length).toBeGreaterThan(0);
    for (const { id, reason } of acks) {
      expect(id).toMatch(/^Annotation::AwsSolutions-[A-Z]+\d+/);
      // IAM findings are acknowledged per action/resource, never by the bare rule id.
      if (/AwsSolutions-IAM[45]/.test(id)) expect(id).toMatch(/\[(Action|Resource|Policy)::.+\]$/);
      expect(reason.length).toBeGreaterThan(40);
    }
    expect(new Set(acks.map((a) => a.id.replace(/^Annotation::/, '').replace(/\[.*$/, '')))).toEqual(
      new Set(['AwsSolutions-SQS3', 'AwsSolutions-L1', 'AwsSolutions-IAM5', 'AwsSolutions-IAM4']),
    );
  });

  it('still reports a wildcard that nobody justified', () => {
    const { app, stack } = buildStack({});
    stack.monitor.sweep.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [stack.monitor.bucket.arnForObjects('*')],
      }),
    );
    const report = new AwsSolutionsChecks().validateScope(app);
    expect(report.violations.map((v) => v.ruleName)).toEqual([
      expect.stringMatching(/^AwsSolutions-IAM5\[Resource::<MonitorHeartbeatBucket\w+\.Arn>\/\*\]$/),
    ]);
  });

  it('fails synthesis when registered as a validation plugin, as bin/app.ts does', () => {
    const { app, stack } = buildStack({});
    stack.monitor.sentinel.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:*'], resources: ['*'] }),
    );
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-IAM5\[Action::s3:\*\]/);
  });
});
