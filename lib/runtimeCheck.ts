import { Token } from 'aws-cdk-lib';
import { configuredProfile } from '../lambdas/adapters/loaders/classifier.js';
import { loadConfig } from '../lambdas/config.js';
import { ConfigError } from '../lambdas/core/base/errors.js';
import { loadProfile } from '../lambdas/core/classify/index.js';
import { settingOfEnv } from './settings/index.js';

/** Stand-ins for values only known at deploy time (bucket name, table name, ARNs). */
const PLACEHOLDER: Record<string, string> = {
  TRAINWATCH_BUCKET: 'bucket',
  TRAINWATCH_TABLE: 'table',
  TRAINWATCH_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:topic',
  TRAINWATCH_EVENT_BUS: 'bus',
  TRAINWATCH_DIAGNOSE_DOCUMENT: 'diagnose',
  TRAINWATCH_RESTART_DOCUMENT: 'restart',
};

/**
 * Parses a function's environment with the runtime's own `loadConfig`, at synth time: a setting the
 * Lambda would reject on its first cold start fails `cdk synth` instead, naming the setting.
 */
export function checkRuntimeConfig(fn: string, env: Readonly<Record<string, string>>): void {
  const literal = Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, Token.isUnresolved(v) ? (PLACEHOLDER[k] ?? 'x') : v]),
  );
  try {
    const config = loadConfig(literal);
    // A custom profile is loaded with the classifier's rules on first use: check it now.
    try {
      configuredProfile(config.remediation.profile, loadProfile);
    } catch (e) {
      throw new ConfigError((e as Error).message, { name: 'TRAINWATCH_PROFILE' }, { cause: e });
    }
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    const name = String(e.context.name ?? '');
    const key = settingOfEnv(name);
    const setting = key ? `${key} (${name})` : name || 'its configuration';
    throw new ConfigError(
      `TrainingRunMonitor: the ${fn} function would reject ${setting}: ${e.message}`,
      e.context,
      {
        cause: e,
      },
    );
  }
}
