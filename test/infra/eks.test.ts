import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import { parseConfig, type TrainwatchConfigInput } from '../../lib/config.js';
import type { TrainingRunMonitorProps } from '../../lib/props.js';
import { resolveProps } from '../../lib/resolve.js';
import { TrainwatchStack } from '../../lib/stack.js';
import { actionsOf, logicalId, roleStatements, synthStack, testApp } from './synth.js';

// The size of a real EKS CA (a 2048-bit RSA certificate: ~1.1 KB of PEM, ~1.5 KB in base64).
const CA = Buffer.from(
  `-----BEGIN CERTIFICATE-----\n${'MIIC/jCCAeagAwIBAgIBADANBgkqhkiG9w0BAQsFADAV\n'.repeat(24)}-----END CERTIFICATE-----\n`,
).toString('base64');

// A short stand-in, for the tests that are not about size.
const SHORT_CA = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString(
  'base64',
);

const PROD = {
  name: 'ml-prod',
  endpoint: 'https://ABCDEF0123456789.gr7.us-east-1.eks.amazonaws.com',
  certificateAuthority: SHORT_CA,
  namespaces: ['training', 'team-a'],
};
const DEV = { ...PROD, name: 'ml-dev', namespaces: ['dev'], group: 'ml:trainwatch' };

/** The CA parameter the stack makes for a cluster of the test stack, `Trainwatch`. */
const caParam = (name: string) => `/trainwatch/Trainwatch/eks/${name}/certificate-authority`;

/** A cluster as the function's environment holds it: the CA's parameter, not the CA. */
const deployed = ({ certificateAuthority: _, ...c }: typeof DEV | typeof PROD) => ({
  ...c,
  certificateAuthorityParam: caParam(c.name),
});

const withClusters = (clusters: unknown[], more: TrainwatchConfigInput = {}): TrainwatchConfigInput => ({
  ...more,
  remediation: { ...more.remediation, eks: { ...more.remediation?.eks, clusters: clusters as never } },
});

function remediateEnv(template: Template): Record<string, string> {
  const id = logicalId(template, 'AWS::Lambda::Function', 'MonitorRemediateFunction');
  return template.toJSON().Resources[id].Properties.Environment.Variables;
}

describe('EKS clusters (remediation.eks)', () => {
  it('gives the remediation role an access entry on each cluster, in its Kubernetes group', () => {
    const { template } = synthStack(withClusters([PROD, DEV]));
    template.resourceCountIs('AWS::EKS::AccessEntry', 2);
    const role = logicalId(template, 'AWS::IAM::Role', 'MonitorRemediateRole');
    for (const [name, group] of [
      ['ml-prod', 'trainwatch:remediation'],
      ['ml-dev', 'ml:trainwatch'],
    ])
      template.hasResourceProperties('AWS::EKS::AccessEntry', {
        ClusterName: name,
        PrincipalArn: { 'Fn::GetAtt': [role, 'Arn'] },
        KubernetesGroups: [group],
        Type: 'STANDARD',
        AccessPolicies: Match.absent(),
      });
  });

  it('creates no access entry without clusters, nor without remediation', () => {
    synthStack().template.resourceCountIs('AWS::EKS::AccessEntry', 0);
    synthStack(withClusters([PROD], { remediation: { enabled: false } })).template.resourceCountIs(
      'AWS::EKS::AccessEntry',
      0,
    );
  });

  it('adds one IAM statement, reading the CA parameters; none for EKS or STS (the token is a presigned GetCallerIdentity)', () => {
    const plain = roleStatements(synthStack().template, 'MonitorRemediateRole');
    const withEks = roleStatements(synthStack(withClusters([PROD])).template, 'MonitorRemediateRole');
    expect(withEks.filter((s) => s.Sid !== 'ReadEksCertificateAuthorities')).toEqual(plain);
    expect(withEks.flatMap(actionsOf).filter((a) => /^(eks|sts):/.test(a))).toEqual([]);
  });

  it('hands the clusters to the remediation function only', () => {
    const { template } = synthStack(
      withClusters([PROD, DEV], { remediation: { eks: { gangRestart: 'suspend' } } }),
    );
    const env = remediateEnv(template);
    expect(JSON.parse(env.TRAINWATCH_EKS_CLUSTERS!)).toEqual([PROD, DEV].map(deployed));
    expect(env.TRAINWATCH_EKS_GANG_RESTART).toBe('suspend');
    const sweep = logicalId(template, 'AWS::Lambda::Function', 'MonitorSweepFunction');
    expect(template.toJSON().Resources[sweep].Properties.Environment.Variables).not.toHaveProperty(
      'TRAINWATCH_EKS_CLUSTERS',
    );
  });

  it('leaves a cluster in another region to the operator, with a warning (CloudFormation acts in its own region)', () => {
    const app = testApp();
    const config = parseConfig(withClusters([PROD, { ...DEV, region: 'eu-west-1' }]));
    const stack = new TrainwatchStack(app, 'Trainwatch', {
      config,
      env: { account: '123456789012', region: 'us-east-1' },
    });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::EKS::AccessEntry', 1);
    template.hasResourceProperties('AWS::EKS::AccessEntry', { ClusterName: 'ml-prod' });
    Annotations.fromStack(stack).hasWarning(
      '/Trainwatch/Monitor',
      Match.stringLikeRegexp('EKS cluster ml-dev is in eu-west-1.*aws eks create-access-entry'),
    );
  });

  it.each([
    [{ ...PROD, namespace: 'x' }, 'remediation.eks.clusters.0: Unrecognized key: "namespace"'],
    [{ ...PROD, namespaces: [] }, 'remediation.eks.clusters.0.namespaces: must list at least one namespace'],
  ])('rejects a config file cluster %#, naming the key', (cluster, message) => {
    expect(() => parseConfig(withClusters([cluster]))).toThrow(message);
  });

  it.each([
    [
      { ...PROD, endpoint: 'http://x' },
      'remediation.eks.clusters is invalid: cluster 0 (ml-prod): endpoint "http://x"',
    ],
    [{ ...PROD, name: 'ml prod' }, 'remediation.eks.clusters is invalid: cluster 0: name "ml prod"'],
    [{ ...PROD, group: 'system:masters' }, "is one of Kubernetes' own"],
  ])('rejects construct props with cluster %#, as the runtime would', (cluster, message) => {
    const props: TrainingRunMonitorProps = { remediation: { eks: { clusters: [cluster] } } };
    expect(() => resolveProps(props)).toThrow(ConfigError);
    expect(() => resolveProps(props)).toThrow(message);
  });

  it("stores each CA in an SSM parameter, so three clusters fit the function's 4 KB environment", () => {
    expect(CA.length).toBeGreaterThan(1500);
    const names = ['ml-prod', 'ml-dev', 'ml-eu'];
    const clusters = names.map((name) => ({ ...PROD, name, certificateAuthority: CA }));
    const { stack, template } = synthStack(withClusters(clusters));
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('environment'));

    template.resourceCountIs('AWS::SSM::Parameter', 3);
    for (const name of names)
      template.hasResourceProperties('AWS::SSM::Parameter', {
        Name: caParam(name),
        Type: 'String',
        Tier: 'Standard',
        Value: CA,
      });

    const env = remediateEnv(template);
    expect(JSON.stringify(env)).not.toContain(CA.slice(0, 40));
    expect(JSON.parse(env.TRAINWATCH_EKS_CLUSTERS!)).toEqual(
      clusters.map(({ certificateAuthority: _, ...c }) => ({
        ...c,
        certificateAuthorityParam: caParam(c.name),
      })),
    );

    // The role's other reads (the Slack webhook's parameter) are those of a stack without EKS: the test above.
    const reads = roleStatements(template, 'MonitorRemediateRole').filter(
      (s) => s.Sid === 'ReadEksCertificateAuthorities',
    );
    expect(reads).toHaveLength(1);
    expect(actionsOf(reads[0]!)).toEqual(['ssm:GetParameter']);
    const arns = reads[0]!.Resource as unknown[];
    expect(arns).toHaveLength(3);
    // Each ARN is `arn:<partition>:ssm:<region>:<account>:parameter` and the name (a Ref) of one CA's parameter.
    const resources = template.toJSON().Resources;
    const named = arns.map((arn) => {
      const parts = (arn as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
      expect(parts.at(-2)).toBe(':parameter');
      const ref = (parts.at(-1) as { Ref: string }).Ref;
      expect(resources[ref].Type).toBe('AWS::SSM::Parameter');
      return resources[ref].Properties.Name as string;
    });
    expect(named.sort()).toEqual(names.map(caParam).sort());
  });

  it('refuses a cluster given by its parameter in the stack: the stack stores the CA itself', () => {
    const { certificateAuthority: _, ...rest } = PROD;
    const cluster = { ...rest, certificateAuthorityParam: '/my/ca' };
    expect(() => resolveProps({ remediation: { eks: { clusters: [cluster as never] } } })).toThrow(
      /cluster ml-prod: needs certificateAuthority/,
    );
  });
});
