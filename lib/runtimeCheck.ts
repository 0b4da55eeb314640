import { Token } from 'aws-cdk-lib';
import { loadConfig } from '../lambdas/config.js';
import { ConfigError } from '../lambdas/core/errors.js';

/** Which construct setting each environment variable comes from, to name it in errors. */
const SETTING: Record<string, string> = {
  TRAINWATCH_PREFIX: 'prefix',
  TRAINWATCH_STALE_AFTER: 'thresholds.staleAfter',
  TRAINWATCH_STALL_AFTER: 'thresholds.stallAfter',
  TRAINWATCH_STARTUP_GRACE: 'thresholds.startupGrace',
  TRAINWATCH_PHASE_STALE_AFTER: 'thresholds.phaseStaleAfter',
  TRAINWATCH_REMIND_EVERY: 'thresholds.remindEvery',
  TRAINWATCH_PROFILE: 'profile',
  TRAINWATCH_RESTART_POLICY: 'remediation.restartPolicy',
  TRAINWATCH_RESTART_COMMANDS: 'remediation.restartCommands',
  TRAINWATCH_MANAGED_TAG: 'remediation.managedTag',
  TRAINWATCH_SSM_OUTPUT_PREFIX: 'remediation.ssmOutputPrefix',
};

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
    loadConfig(literal);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    const name = String(e.context.name ?? '');
    const setting = SETTING[name] ? `${SETTING[name]} (${name})` : name || 'its configuration';
    throw new ConfigError(
      `TrainingRunMonitor: the ${fn} function would reject ${setting}: ${e.message}`,
      e.context,
      {
        cause: e,
      },
    );
  }
}
