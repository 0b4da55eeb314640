import { randomUUID } from 'node:crypto';
import { configuredProfile } from '../adapters/loaders/classifier.js';
import {
  SsmCommandRunner,
  type SsmCommandRunnerOptions,
} from '../adapters/platforms/ec2/ssmCommandRunner.js';
import { S3AttemptArchive } from '../adapters/stores/s3AttemptArchive.js';
import { loadProfile } from '../core/classify/index.js';
import type { RemediationDeps } from '../core/remediation/index.js';
import type { App } from './app.js';

/** Remediation's ports, from the app (its clients and stores) and the remediation settings. */
export function remediationDeps(app: App, ssm: SsmCommandRunnerOptions = {}): RemediationDeps {
  const { config, clients } = app;
  const r = config.remediation;
  return {
    runs: app.runs,
    states: app.states,
    commands: new SsmCommandRunner(
      clients.ssm,
      clients.s3,
      { bucket: config.bucket, prefix: r.ssmOutputPrefix },
      ssm,
    ),
    archive: new S3AttemptArchive(config.bucket, config.prefix, clients.s3),
    notifiers: app.deps.notifiers,
    links: app.deps.links,
    settings: {
      diagnoseDocument: r.diagnoseDocument,
      restartDocument: r.restartDocument,
      policy: r.policy,
      // Remediation classifies every failure it handles: its rules are bundled, a custom profile loaded now.
      profile: configuredProfile(r.profile, loadProfile),
      commands: r.commands,
    },
    owner: `remediate:${randomUUID()}`,
  };
}
