import { Annotations, Stack, Token } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import type * as iam from 'aws-cdk-lib/aws-iam';
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
