import { lazyClassifier } from './adapters/classifier.js';
import { type Clients, lambdaClients } from './adapters/clients.js';
import { DynamoGroupStore } from './adapters/dynamoGroupStore.js';
import { DynamoSilenceStore } from './adapters/dynamoSilenceStore.js';
import { DynamoStateStore } from './adapters/dynamoStateStore.js';
import { buildNotifiers } from './adapters/notifiers.js';
import { S3RunStore } from './adapters/s3RunStore.js';
import { type Config, loadConfig } from './config.js';
import { DEFAULT_HEALTH_SETTINGS } from './core/health/index.js';
import type { SweepDeps } from './core/pipeline/sweep.js';

/** Everything a handler or CLI command needs, wired once per cold start. */
export interface App<C extends Clients = Clients> {
  readonly config: Config;
  readonly clients: C;
  readonly runs: S3RunStore;
  readonly states: DynamoStateStore;
  /** Silences (on-call lifecycle; grouping is in `deps.oncall`; `trainwatch ack` makes its own store). */
  readonly silences: DynamoSilenceStore;
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
  const states = new DynamoStateStore(config.table, c.ddb, config.historyTtlDays, config.runRetentionDays);
  const silences = new DynamoSilenceStore(config.table, c.ddb);
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
      links: { bucket: config.bucket, prefix: config.prefix, region: config.region },
      remindEveryMs: config.remindEveryMs,
      concurrency: config.concurrency,
      ending: { endedAfterMs: config.endedAfterMs, remindEveryMs: config.remindEveryMs },
      health: { ...DEFAULT_HEALTH_SETTINGS, ...config.health },
      oncall: { silences, groups: new DynamoGroupStore(config.table, c.ddb), groupMin: config.groupMin },
    },
  };
}
