import { CfnResource, Stack, Validations } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import type { IConstruct } from 'constructs';

/** Acknowledges one cdk-nag finding (a rule id, or a rule id with its `[finding]`) with its reason. */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/**
 * Records an accepted checkov finding on a resource (`Metadata.checkov.skip`), with its reason, so that
 * a scan of the template reports it as skipped, not failed (docs/DEPLOY.md, "IaC scanner findings").
 */
export function checkovSkip(scope: IConstruct, id: string, comment: string): void {
  const resource = scope instanceof CfnResource ? scope : scope.node.defaultChild;
  if (!(resource instanceof CfnResource))
    throw new Error(`checkovSkip: ${scope.node.path} has no CfnResource`);
  const metadata = (resource.getMetadata('checkov') ?? { skip: [] }) as {
    skip: { id: string; comment: string }[];
  };
  metadata.skip.push({ id, comment });
  resource.addMetadata('checkov', metadata);
}

/**
 * Adds `statement` to `role` and acknowledges exactly the AwsSolutions-IAM5 findings it raises (each
 * wildcard action or resource, flattened the way cdk-nag names them), so a wildcard added later, or
 * anywhere else, is still reported.
 */
export function allowScoped(role: iam.Role, statement: iam.PolicyStatement, reason: string): void {
  role.addToPrincipalPolicy(statement);
  for (const finding of wildcardFindings(role, statement))
    acknowledge(role, `AwsSolutions-IAM5[${finding}]`, reason);
}

/** Same as {@link allowScoped}, for a managed policy. */
export function allowScopedInPolicy(
  policy: iam.ManagedPolicy,
  statement: iam.PolicyStatement,
  reason: string,
): void {
  policy.addStatements(statement);
  for (const finding of wildcardFindings(policy, statement))
    acknowledge(policy, `AwsSolutions-IAM5[${finding}]`, reason);
}

/** The IAM5 finding names of one statement: `Action::x:*` and `Resource::<Logical.Arn>/prefix/*`. */
export function wildcardFindings(scope: IConstruct, statement: iam.PolicyStatement): string[] {
  const json = Stack.of(scope).resolve(statement.toStatementJson()) as {
    Action?: unknown;
    Resource?: unknown;
  };
  const list = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const actions = list(json.Action)
    .filter((a): a is string => typeof a === 'string' && a.includes('*'))
    .map((a) => `Action::${a}`);
  const resources = list(json.Resource)
    .map((r) => flattenCfnReference(r))
    .filter((r) => r.includes('*'))
    .map((r) => `Resource::${r}`);
  return [...actions, ...resources];
}
