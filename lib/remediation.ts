import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { EventRules } from '../lambdas/core/remediation/eventRules.js';
import { diagnoseDocument, restartDocument } from '../lambdas/ssm/documents.js';

/** The two SSM Command documents this stack owns; remediation runs nothing else. */
export class RemediationDocuments extends Construct {
  readonly diagnose: ssm.CfnDocument;
  readonly restart: ssm.CfnDocument;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // No `name`: CloudFormation generates a unique one, so two stacks in one account do not collide.
    this.diagnose = new ssm.CfnDocument(this, 'Diagnose', {
      documentType: 'Command',
      documentFormat: 'JSON',
      updateMethod: 'NewVersion',
      content: diagnoseDocument(),
    });
    this.restart = new ssm.CfnDocument(this, 'Restart', {
      documentType: 'Command',
      documentFormat: 'JSON',
      updateMethod: 'NewVersion',
      content: restartDocument(),
    });
  }

  /** The generated document names (what SendCommand takes and IAM names). */
  get names(): string[] {
    return [this.diagnose.ref, this.restart.ref];
  }
}

/** Routes transitions into an unhealthy terminal-ish state from the trainwatch bus to remediation. */
export function remediationRule(
  scope: Construct,
  opts: {
    bus: events.IEventBus;
    target: import('aws-cdk-lib/aws-lambda').IFunction;
    deadLetterQueue: sqs.IQueue;
  },
): events.Rule {
  return new events.Rule(scope, 'RemediationRule', {
    description:
      'trainwatch: a run FAILED, TIMED_OUT or STALLED: diagnose it, restart it if the policy says so',
    eventBus: opts.bus,
    eventPattern: EventRules.remediation(),
    targets: [
      new targets.LambdaFunction(opts.target, { deadLetterQueue: opts.deadLetterQueue, retryAttempts: 4 }),
    ],
  });
}

/** Routes people's restart requests (Slack's Restart now, `trainwatch restart`) to remediation, which probes and decides. */
export function restartRequestRule(
  scope: Construct,
  opts: {
    bus: events.IEventBus;
    target: import('aws-cdk-lib/aws-lambda').IFunction;
    deadLetterQueue: sqs.IQueue;
  },
): events.Rule {
  return new events.Rule(scope, 'RestartRequestRule', {
    description:
      'trainwatch: a person asked for a restart: probe the run again, restart it if policy and probe allow',
    eventBus: opts.bus,
    eventPattern: EventRules.restartRequest(),
    targets: [
      new targets.LambdaFunction(opts.target, { deadLetterQueue: opts.deadLetterQueue, retryAttempts: 4 }),
    ],
  });
}
