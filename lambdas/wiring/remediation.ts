import { randomUUID } from 'node:crypto';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { ClientSource } from '../adapters/aws/lazy.js';
import { secureString } from '../adapters/aws/secureString.js';
import { lazyDetailedClassifier } from '../adapters/loaders/classifier.js';
import {
  SsmCommandRunner,
  type SsmCommandRunnerOptions,
} from '../adapters/platforms/ec2/ssmCommandRunner.js';
import { loadEks } from '../adapters/platforms/eks/load.js';
import { S3AttemptArchive } from '../adapters/stores/s3AttemptArchive.js';
import type { Config } from '../config.js';
import type { RemediationDeps, RemediationSettings } from '../core/remediation/index.js';
import { type EksClusterSetting, isPemBase64 } from '../settings/eks.js';
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
      // A name, or a custom profile's text: the classifier loads it with its rules, on the first failure.
      profile: r.profile,
      commands: r.commands,
      ...eksSettings(config),
    },
    classify: lazyDetailedClassifier(r.profile),
    ...eksAccess(config, clients.ssm),
    owner: `remediate:${randomUUID()}`,
  };
}

/** What core needs to know of the configured clusters: their names and namespaces (no endpoint, no CA). */
function eksSettings(config: Config): Pick<RemediationSettings, 'eks'> {
  const { clusters, gangRestart } = config.remediation.eks;
  if (!clusters.length) return {};
  return { eks: { clusters: clusters.map(({ name, namespaces }) => ({ name, namespaces })), gangRestart } };
}

/**
 * A cluster's CA: given as itself, or read from its SSM parameter (the stack's way) with the function's SSM
 * client; an error names the parameter.
 */
async function certificateAuthority(c: EksClusterSetting, ssm: ClientSource<SSMClient>): Promise<string> {
  if (c.certificateAuthority) return c.certificateAuthority;
  const param = c.certificateAuthorityParam ?? '';
  const value = (await secureString(param, `EKS cluster ${c.name}`, ssm)())?.replace(/\s+/g, '');
  if (!value || !isPemBase64(value))
    throw new Error(
      `EKS cluster ${c.name}: SSM parameter ${param} does not hold base64 of a PEM certificate (cluster.certificateAuthority.data)`,
    );
  return value;
}

/**
 * Each configured cluster's API, made on the first run on EKS that needs it (the EKS code is a file of its
 * own in the bundle: load.ts; the CA is read then, from SSM if the stack put it there) and kept for the next;
 * a cluster that failed to load is tried again.
 */
function eksAccess(config: Config, ssm: ClientSource<SSMClient>): Pick<RemediationDeps, 'eks'> {
  const clusters = new Map(config.remediation.eks.clusters.map((c) => [c.name, c]));
  if (!clusters.size) return {};
  const apis = new Map<string, ReturnType<NonNullable<RemediationDeps['eks']>>>();
  return {
    eks: (name) => {
      const known = apis.get(name);
      if (known) return known;
      const c = clusters.get(name);
      if (!c)
        return Promise.reject(new Error(`cluster ${name} is not configured (remediation.eks.clusters)`));
      const api = Promise.all([loadEks(), certificateAuthority(c, ssm)]).then(([m, ca]) =>
        m.eksCluster({
          name: c.name,
          endpoint: c.endpoint,
          certificateAuthority: ca,
          region: c.region ?? config.region,
        }),
      );
      apis.set(name, api);
      api.catch(() => apis.delete(name));
      return api;
    },
  };
}
