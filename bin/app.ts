#!/usr/bin/env node
// CDK app entry (`cdk.json`: npx tsx bin/app.ts): one trainwatch stack per account, from configuration.
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ConfigError } from '../lambdas/core/base/errors.js';
import { configFromContext } from '../lib/config.js';
import { TrainwatchStack } from '../lib/stack.js';

const app = new App();
try {
  const config = configFromContext((key) => app.node.tryGetContext(key));
  new TrainwatchStack(app, config.stackName, {
    config,
    // Account and region from the config, else from the CLI's credentials at deploy time (env-agnostic synth).
    env: {
      account: config.account ?? process.env.CDK_DEFAULT_ACCOUNT,
      region: config.region ?? process.env.CDK_DEFAULT_REGION,
    },
  });
} catch (e) {
  if (!(e instanceof ConfigError)) throw e;
  console.error(`trainwatch: ${e.message}`);
  process.exit(1);
}
// cdk-nag: synthesis fails on any AwsSolutions finding that is not acknowledged with a reason.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
