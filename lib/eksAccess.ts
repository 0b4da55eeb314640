import { Annotations, Stack, Token } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import type { EksClusterSetting } from '../lambdas/settings/eks.js';

/**
 * The remediation role's access entry on each configured EKS cluster: Kubernetes sees the role as a member
 * of the cluster's `group`, which docs/eks-rbac.yaml binds. The cluster is only named, never imported: it may
 * belong to any stack (or none), and must use access entries (authentication mode API or API_AND_CONFIG_MAP).
 * No IAM statement goes with it: the function signs a token for STS GetCallerIdentity, which needs none
 * (docs/EKS.md, "Configuration"). CloudFormation creates an access entry in the stack's own account and region,
 * so a cluster in another region gets a warning and its entry is the operator's to create.
 */
export function eksAccessEntries(
  scope: Construct,
  role: iam.IRole,
  clusters: readonly EksClusterSetting[],
): eks.CfnAccessEntry[] {
  const region = Stack.of(scope).region;
  const entries: eks.CfnAccessEntry[] = [];
  for (const c of clusters) {
    if (c.region && !Token.isUnresolved(region) && c.region !== region) {
      Annotations.of(scope).addWarningV2(
        `trainwatch:eksAccessEntry:${c.name}`,
        `EKS cluster ${c.name} is in ${c.region}, not the stack's ${region}: create its access entry yourself (aws eks create-access-entry --cluster-name ${c.name} --region ${c.region} --principal-arn <the remediation role> --kubernetes-groups ${c.group})`,
      );
      continue;
    }
    entries.push(
      new eks.CfnAccessEntry(scope, `EksAccess-${c.name}`, {
        clusterName: c.name,
        principalArn: role.roleArn,
        kubernetesGroups: [c.group],
        type: 'STANDARD',
      }),
    );
  }
  return entries;
}

/** The SSM parameter the stack stores a cluster's CA in. */
export function certificateAuthorityParameterName(stackName: string, cluster: string): string {
  return `/trainwatch/${stackName}/eks/${cluster}/certificate-authority`;
}

/**
 * Each cluster's CA in an SSM parameter of its own (String, standard tier: a CA is ~1.5 KB of the 4 KB allowed),
 * and the clusters as the function gets them: the parameter's name in place of the CA, which would leave room for
 * one cluster in Lambda's 4 KB environment.
 */
export function eksCertificateAuthorities(
  scope: Construct,
  clusters: readonly EksClusterSetting[],
): { clusters: EksClusterSetting[]; parameters: ssm.StringParameter[] } {
  const stackName = Stack.of(scope).stackName;
  const parameters: ssm.StringParameter[] = [];
  const out = clusters.map(({ certificateAuthority, ...c }) => {
    if (!certificateAuthority) return c;
    const name = certificateAuthorityParameterName(stackName, c.name);
    parameters.push(
      new ssm.StringParameter(scope, `EksCertificateAuthority-${c.name}`, {
        parameterName: name,
        stringValue: certificateAuthority,
        tier: ssm.ParameterTier.STANDARD,
        description: `trainwatch: CA of EKS cluster ${c.name} (base64 PEM), read by the remediation function`,
      }),
    );
    return { ...c, certificateAuthorityParam: name };
  });
  return { clusters: out, parameters };
}

/** Lets the remediation role read the clusters' CA parameters: those only, GetParameter only. */
export function grantCertificateAuthorities(
  role: iam.IRole,
  parameters: readonly ssm.StringParameter[],
): void {
  if (!parameters.length) return;
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ReadEksCertificateAuthorities',
      actions: ['ssm:GetParameter'],
      resources: parameters.map((p) => p.parameterArn),
    }),
  );
}
