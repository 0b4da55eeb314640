import { type Clients, lambdaClients } from '../adapters/aws/clients.js';
import { buildNotifiers } from '../adapters/channels/notifiers.js';
import { lazyClassifier } from '../adapters/loaders/classifier.js';
import { S3RunStore } from '../adapters/stores/s3RunStore.js';
import { type Config, loadConfig } from '../config.js';
import { DEFAULT_HEALTH_SETTINGS } from '../core/health/index.js';
import type { SweepDeps } from '../core/pipeline/index.js';
import { groupStore, linksOf, silenceStore, stateStore } from './stores.js';

/** Everything a handler or CLI command needs, wired once per cold start. */
export interface App<C extends Clients = Clients> {
  readonly config: Config;
  readonly clients: C;
  readonly runs: S3RunStore;
  readonly states: ReturnType<typeof stateStore>;
  /** Silences (on-call lifecycle; grouping is in `deps.oncall`). */
  readonly silences: ReturnType<typeof silenceStore>;
  readonly deps: SweepDeps;
}

/** Builds the app from the environment, with a Lambda's lean clients unless others are given (local mode, tests). */
export function createApp(env: Readonly<Record<string, string | undefined>>): App;
export function createApp<C extends Clients>(
  env: Readonly<Record<string, string | undefined>>,
  clients: C,
): App<C>;
export function createApp(env: Readonly<Record<string, string | undefined>>, clients?: Clients): App {
  const config = loadConfig(env);
  const c = clients ?? lambdaClients({ region: config.region, endpoint: config.endpoint });
  const runs = new S3RunStore(config.bucket, config.prefix, c.s3, config.endedPrefix);
  const states = stateStore(config, c.ddb);
  const silences = silenceStore(config, c.ddb);
  const notifiers = buildNotifiers(config, { sns: c.sns, ssm: c.ssm, events: c.events, ddb: c.ddb });
  return {
    config,
    clients: c,
    runs,
    states,
    silences,
    deps: {
      runs,
      states,
      notifiers,
      thresholds: config.thresholds,
      classify: lazyClassifier(config.remediation.profile),
      links: linksOf(config),
      remindEveryMs: config.remindEveryMs,
      concurrency: config.concurrency,
      ending: { endedAfterMs: config.endedAfterMs, remindEveryMs: config.remindEveryMs },
      health: { ...DEFAULT_HEALTH_SETTINGS, ...config.health },
      oncall: { silences, groups: groupStore(config, c.ddb), groupMin: config.groupMin },
    },
  };
}
