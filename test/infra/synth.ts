import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { parseConfig, type TrainwatchConfigInput } from '../../lib/config.js';
import { TrainwatchStack } from '../../lib/stack.js';

/** Context that skips esbuild: unit-speed synthesis (the bundle test bundles for real). */
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

/**
 * An app for unit-speed tests: no bundling, and without aws-cdk-lib's built-in CloudFormation validation
 * (seconds per process; cfn-lint checks the real template in scripts/cfn-lint.mjs).
 */
export function testApp(): App {
  return new App({ context: NO_BUNDLING, builtinCloudFormationValidation: false });
}

/** A TrainwatchStack from a config object (not synthesized). */
export function buildStack(config: TrainwatchConfigInput = {}): { app: App; stack: TrainwatchStack } {
  const app = testApp();
  return { app, stack: new TrainwatchStack(app, 'Trainwatch', { config: parseConfig(config) }) };
}

/** A synthesized TrainwatchStack and its template. */
export function synthStack(config: TrainwatchConfigInput = {}): {
  app: App;
  stack: TrainwatchStack;
  template: Template;
} {
  const { app, stack } = buildStack(config);
  return { app, stack, template: Template.fromStack(stack) };
}

type Json = Record<string, unknown>;

/** Statements of the inline policy attached to the role whose logical id starts with `rolePrefix`, keyed by Sid. */
export function roleStatements(template: Template, rolePrefix: string): Json[] {
  const policies = template.findResources('AWS::IAM::Policy');
  const found = Object.values(policies).filter((p) =>
    ((p.Properties as Json).Roles as Json[]).some((r) => String(r.Ref).startsWith(rolePrefix)),
  );
  if (found.length !== 1) throw new Error(`expected one policy for ${rolePrefix}, found ${found.length}`);
  return ((found[0]!.Properties as Json).PolicyDocument as { Statement: Json[] }).Statement;
}

/** Logical id of the only resource of `type` whose id starts with `prefix`. */
export function logicalId(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} ${prefix}*, found ${ids.join(', ') || 'none'}`);
  return ids[0]!;
}

/** Actions of a statement as a sorted array. */
export function actionsOf(statement: Json): string[] {
  const a = statement.Action as string | string[];
  return (Array.isArray(a) ? [...a] : [a]).sort();
}
