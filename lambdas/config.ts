import { type Env, loadSettings, type SettingValues } from './settings/index.js';

/**
 * trainwatch's configuration, parsed once from the environment (the same names in Lambda and locally).
 * Its fields are derived from the settings registry (lambdas/settings/registry.ts): `thresholds`,
 * `remindEveryMs`, `historyTtlDays`, `concurrency`, `remediation` (policy, profile, commands, …), and the
 * wiring (`bucket`, `table`, `topicArn`, `eventBus`, `region`, `endpoint`, …).
 */
export interface Config extends SettingValues {}

/** Parses and validates the configuration; throws ConfigError naming the first bad setting. */
export function loadConfig(env: Env): Config {
  return loadSettings(env);
}
