import { Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { parseDuration } from '../lambdas/core/duration.js';
import { ConfigError } from '../lambdas/core/errors.js';
import { DEFAULTS, LAMBDA_ENV_LIMIT_BYTES, PROFILES, RESTART_PRESETS } from './defaults.js';
import type { ManagedTag, RestartCommand, TrainingRunMonitorProps } from './props.js';

/** Props with every default applied and every value checked. */
export interface ResolvedProps {
  readonly prefix: string;
  readonly schedule: Duration;
  readonly staleAfter: Duration;
  readonly stallAfter: Duration;
  readonly startupGrace: Duration;
  readonly phaseStaleAfter: Readonly<Record<string, Duration>>;
  readonly remindEvery?: Duration;
  readonly slackWebhookParameterName?: string;
  readonly pagerDutyRoutingKeyParameterName?: string;
  readonly groupMin: number;
  readonly alertEmails: readonly string[];
  /** A built-in profile name, or a custom profile as JSON. */
  readonly profile: string;
  readonly remediation: {
    readonly enabled: boolean;
    readonly restartPolicy: string | Readonly<Record<string, unknown>>;
    readonly restartCommands: Readonly<Record<string, RestartCommand>>;
    readonly managedTag: ManagedTag;
    readonly ssmOutputPrefix: string;
  };
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: logs.RetentionDays;
  readonly runRetention: Duration;
  readonly historyTtlDays: number;
  readonly concurrency: number;
  readonly sweepMemorySize: number;
  readonly sweepTimeout: Duration;
}

const KEY_PREFIX = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;
/** Deliberately loose: catches typos and empty strings; SNS confirms the address itself. */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function fail(setting: string, problem: string): never {
  throw new ConfigError(`TrainingRunMonitor: ${setting} ${problem}`, { name: setting });
}

function minutesOf(setting: string, d: Duration, min: number, max: number): Duration {
  const minutes = d.toSeconds({ integral: false }) / 60;
  if (!Number.isInteger(minutes) || minutes < min || minutes > max)
    fail(setting, `must be a whole number of minutes from ${min} to ${max} (got ${d.toHumanString()})`);
  return d;
}

function keyPrefix(setting: string, value: string): string {
  const p = value.trim().replace(/^\/+|\/+$/g, '');
  if (!KEY_PREFIX.test(p))
    fail(
      setting,
      `${JSON.stringify(value)} must be a non-empty S3 key prefix of letters, digits, . _ - and /`,
    );
  return p;
}

function positive(setting: string, d: Duration | undefined, fallback: string): Duration {
  if (d === undefined) return Duration.millis(parseDuration(fallback)!);
  if (d.toMilliseconds() <= 0) fail(setting, 'must be longer than zero');
  return d;
}

function intIn(setting: string, v: number | undefined, fallback: number, min: number, max: number): number {
  const n = v ?? fallback;
  if (!Number.isInteger(n) || n < min || n > max)
    fail(setting, `must be an integer from ${min} to ${max} (got ${n})`);
  return n;
}

/** Applies defaults and validates; throws ConfigError naming the setting and the fix. */
export function resolveProps(props: TrainingRunMonitorProps): ResolvedProps {
  const t = props.thresholds ?? {};
  const r = props.remediation ?? {};
  const profileProp = props.profile ?? DEFAULTS.profile;
  const profile = typeof profileProp === 'string' ? profileProp : JSON.stringify(profileProp);
  if (typeof profileProp === 'string' && !PROFILES.includes(profile))
    fail('profile', `${JSON.stringify(profile)} is unknown; use one of ${PROFILES.join(', ')}`);
  const restartPolicy = r.restartPolicy ?? DEFAULTS.restartPolicy;
  if (typeof restartPolicy === 'string' && !(RESTART_PRESETS as readonly string[]).includes(restartPolicy))
    fail(
      'remediation.restartPolicy',
      `${JSON.stringify(restartPolicy)} is unknown; use one of ${RESTART_PRESETS.join(', ')} or a policy object`,
    );
  const restartCommands = r.restartCommands ?? {};
  for (const [job, command] of Object.entries(restartCommands))
    if (!(typeof command === 'string' ? command : command.command).trim())
      fail(`remediation.restartCommands[${JSON.stringify(job)}]`, 'is empty');
  const tunables =
    JSON.stringify(restartPolicy).length +
    JSON.stringify(restartCommands).length +
    (typeof profileProp === 'string' ? 0 : profile.length);
  // Lambda caps a function's whole environment at 4 KB; leave room for the names and ARNs.
  if (tunables > LAMBDA_ENV_LIMIT_BYTES - 1500)
    fail(
      'remediation',
      `restartPolicy, restartCommands and a custom profile take ${tunables} bytes; keep them under ${LAMBDA_ENV_LIMIT_BYTES - 1500} (Lambda environment limit)`,
    );
  const managedTag = r.managedTag ?? DEFAULTS.managedTag;
  if (!managedTag.key.trim() || managedTag.key.startsWith('aws:'))
    fail('remediation.managedTag.key', 'must be a non-empty tag key not starting with aws:');
  const emails = props.alertEmails ?? [];
  for (const email of emails)
    if (!Token.isUnresolved(email) && !EMAIL.test(email))
      fail('alertEmails', `${JSON.stringify(email)} is not an email address`);
  const phaseStaleAfter =
    props.thresholds?.phaseStaleAfter ??
    Object.fromEntries(
      Object.entries(DEFAULTS.phaseStaleAfter).map(([k, v]) => [k, Duration.millis(parseDuration(v)!)]),
    );
  for (const phase of Object.keys(phaseStaleAfter))
    if (!/^[A-Za-z0-9_-]+$/.test(phase))
      fail(
        'thresholds.phaseStaleAfter',
        `phase ${JSON.stringify(phase)} may hold only letters, digits, _ and -`,
      );
  const schedule = minutesOf('schedule', props.schedule ?? Duration.minutes(DEFAULTS.scheduleMinutes), 1, 60);
  const sweepTimeout = props.sweepTimeout ?? Duration.seconds(DEFAULTS.sweepTimeoutSeconds);
  if (sweepTimeout.toSeconds() < 10 || sweepTimeout.toSeconds() > 900)
    fail('sweepTimeout', `must be from 10 seconds to 15 minutes (got ${sweepTimeout.toHumanString()})`);
  const slack = props.slackWebhookParameterName ?? DEFAULTS.slackWebhookParameterName;
  if (slack && !/^[A-Za-z0-9_.\-/]+$/.test(slack))
    fail('slackWebhookParameterName', `${JSON.stringify(slack)} is not an SSM parameter name`);
  const pagerDuty = props.pagerDutyRoutingKeyParameterName;
  if (pagerDuty !== undefined && !/^[A-Za-z0-9_.\-/]+$/.test(pagerDuty))
    fail('pagerDutyRoutingKeyParameterName', `${JSON.stringify(pagerDuty)} is not an SSM parameter name`);
  const runRetention = props.runRetention ?? Duration.days(DEFAULTS.runRetentionDays);
  const historyTtl = props.historyTtl ?? Duration.days(DEFAULTS.historyTtlDays);
  const prefix = keyPrefix('prefix', props.prefix ?? DEFAULTS.prefix);
  const ssmOutputPrefix = keyPrefix(
    'remediation.ssmOutputPrefix',
    r.ssmOutputPrefix ?? DEFAULTS.ssmOutputPrefix,
  );
  // SSM output under the run prefix would look like a run to the sweep (and the reverse, like output).
  if (`${ssmOutputPrefix}/`.startsWith(`${prefix}/`) || `${prefix}/`.startsWith(`${ssmOutputPrefix}/`))
    fail(
      'remediation.ssmOutputPrefix',
      `${JSON.stringify(ssmOutputPrefix)} must not overlap the run prefix ${JSON.stringify(prefix)}`,
    );
  return {
    prefix,
    schedule,
    staleAfter: positive('thresholds.staleAfter', t.staleAfter, DEFAULTS.staleAfter),
    stallAfter: positive('thresholds.stallAfter', t.stallAfter, DEFAULTS.stallAfter),
    startupGrace: positive('thresholds.startupGrace', t.startupGrace, DEFAULTS.startupGrace),
    phaseStaleAfter,
    remindEvery: t.remindEvery,
    slackWebhookParameterName: slack || undefined,
    pagerDutyRoutingKeyParameterName: pagerDuty || undefined,
    groupMin: intIn('groupMin', props.groupMin, 3, 0, 1000),
    alertEmails: emails,
    profile,
    remediation: {
      enabled: r.enabled ?? true,
      restartPolicy,
      restartCommands,
      managedTag,
      ssmOutputPrefix,
    },
    removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    runRetention,
    historyTtlDays: intIn(
      'historyTtl (days)',
      Math.round(historyTtl.toDays({ integral: false })),
      0,
      1,
      3650,
    ),
    concurrency: intIn('concurrency', props.concurrency, DEFAULTS.concurrency, 1, 256),
    sweepMemorySize: intIn('sweepMemorySize', props.sweepMemorySize, DEFAULTS.sweepMemoryMb, 128, 10240),
    sweepTimeout,
  };
}
