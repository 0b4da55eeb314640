import { Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { ConfigError } from '../lambdas/core/base/errors.js';
import type { EksClusterSetting } from '../lambdas/settings/eks.js';
import type { SETTINGS } from '../lambdas/settings/index.js';
import { DEFAULTS, LAMBDA_ENV_LIMIT_BYTES } from './defaults.js';
import { certificateAuthorityParameterName } from './eksAccess.js';
import type { TrainingRunMonitorProps } from './props.js';
import { CODECS, type ResolvedOf, resolveSettings } from './settings/index.js';

type Settings = ResolvedOf<typeof SETTINGS>;

/**
 * Props with every default applied and every value checked: the runtime settings (nested as the props
 * are, from the registry), then the stack's own.
 */
export interface ResolvedProps extends Omit<Settings, 'remediation'> {
  readonly remediation: Settings['remediation'] & { readonly enabled: boolean };
  readonly schedule: Duration;
  readonly alertEmails: readonly string[];
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: logs.RetentionDays;
  readonly sweepMemorySize: number;
  readonly sweepTimeout: Duration;
  /** Per function; undefined: no reservation. */
  readonly reservedConcurrency?: {
    readonly sweep: number;
    readonly sentinel: number;
    readonly remediate: number;
    readonly slack: number;
  };
  readonly serverAccessLogs: boolean | s3.IBucket;
  readonly customerManagedKey: boolean;
}

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

function intIn(setting: string, v: number | undefined, fallback: number, min: number, max: number): number {
  const n = v ?? fallback;
  if (!Number.isInteger(n) || n < min || n > max)
    fail(setting, `must be an integer from ${min} to ${max} (got ${n})`);
  return n;
}

function reservedConcurrency(
  r: TrainingRunMonitorProps['reservedConcurrency'],
): ResolvedProps['reservedConcurrency'] {
  if (r === false) return undefined;
  const d = DEFAULTS.reservedConcurrency;
  return {
    sweep: intIn('reservedConcurrency.sweep', r?.sweep, d.sweep, 1, 1000),
    sentinel: intIn('reservedConcurrency.sentinel', r?.sentinel, d.sentinel, 1, 1000),
    remediate: intIn('reservedConcurrency.remediate', r?.remediate, d.remediate, 1, 1000),
    slack: intIn('reservedConcurrency.slack', r?.slack, d.slack, 1, 1000),
  };
}

/** A cluster as the function's environment holds it: its CA's parameter, named for the longest stack name. */
const asDeployed = ({ certificateAuthority: _, ...c }: EksClusterSetting): EksClusterSetting => ({
  ...c,
  certificateAuthorityParam: certificateAuthorityParameterName('x'.repeat(128), c.name),
});

/** Checks that span settings: each one alone is checked by its kind (lib/settings/kinds.ts). */
function checkTogether(s: Settings, props: TrainingRunMonitorProps): void {
  const eks = s.remediation.eks.clusters;
  const tunables =
    JSON.stringify(s.remediation.restartPolicy).length +
    JSON.stringify(s.remediation.restartCommands).length +
    (eks ? CODECS.eksClusters.toEnv(eks.map(asDeployed)).length : 0) +
    (typeof props.profile === 'object' ? s.profile.length : 0);
  // Lambda caps a function's whole environment at 4 KB; leave room for the names and ARNs.
  if (tunables > LAMBDA_ENV_LIMIT_BYTES - 1500)
    fail(
      'remediation',
      `restartPolicy, restartCommands, eks.clusters and a custom profile take ${tunables} bytes; keep them under ${LAMBDA_ENV_LIMIT_BYTES - 1500} (Lambda environment limit)`,
    );
  // The Slack app posts to one channel; its endpoint acts on the threads the app posted.
  if (s.slack.botTokenParameterName && !s.slack.channel)
    fail('slack.channel', 'is required with slack.botTokenParameterName (the channel id the app posts to)');
  if (s.slack.signingSecretParameterName && !s.slack.botTokenParameterName)
    fail(
      'slack.signingSecretParameterName',
      'needs slack.botTokenParameterName: the buttons live on the messages the app posts',
    );
  // SSM output under the run prefix would look like a run to the sweep (and the reverse, like output).
  const [ssm, prefix] = [s.remediation.ssmOutputPrefix, s.prefix];
  if (`${ssm}/`.startsWith(`${prefix}/`) || `${prefix}/`.startsWith(`${ssm}/`))
    fail(
      'remediation.ssmOutputPrefix',
      `${JSON.stringify(ssm)} must not overlap the run prefix ${JSON.stringify(prefix)}`,
    );
  // Ended runs under the run prefix would be listed by every sweep: the cost this layout exists to avoid.
  const overlaps = (a: string, b: string) => `${a}/`.startsWith(`${b}/`) || `${b}/`.startsWith(`${a}/`);
  const ended = s.endedPrefix;
  if (prefix && overlaps(ended, prefix))
    fail('endedPrefix', `${JSON.stringify(ended)} must not overlap the run prefix ${JSON.stringify(prefix)}`);
  if (overlaps(ended, ssm))
    fail(
      'endedPrefix',
      `${JSON.stringify(ended)} must not overlap remediation.ssmOutputPrefix ${JSON.stringify(ssm)}`,
    );
}

/** Applies defaults and validates; throws ConfigError naming the setting and the fix. */
export function resolveProps(props: TrainingRunMonitorProps): ResolvedProps {
  const s = resolveSettings(props);
  checkTogether(s, props);
  const emails = props.alertEmails ?? [];
  for (const email of emails)
    if (!Token.isUnresolved(email) && !EMAIL.test(email))
      fail('alertEmails', `${JSON.stringify(email)} is not an email address`);
  if (props.bucket && props.serverAccessLogs)
    fail(
      'serverAccessLogs',
      'applies to a created bucket; an existing bucket keeps its own logging settings',
    );
  const schedule = minutesOf('schedule', props.schedule ?? Duration.minutes(DEFAULTS.scheduleMinutes), 1, 60);
  const sweepTimeout = props.sweepTimeout ?? Duration.seconds(DEFAULTS.sweepTimeoutSeconds);
  if (sweepTimeout.toSeconds() < 10 || sweepTimeout.toSeconds() > 900)
    fail('sweepTimeout', `must be from 10 seconds to 15 minutes (got ${sweepTimeout.toHumanString()})`);
  return {
    ...s,
    remediation: { ...s.remediation, enabled: props.remediation?.enabled ?? true },
    schedule,
    alertEmails: emails,
    removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    sweepMemorySize: intIn('sweepMemorySize', props.sweepMemorySize, DEFAULTS.sweepMemoryMb, 128, 10240),
    sweepTimeout,
    reservedConcurrency: reservedConcurrency(props.reservedConcurrency),
    serverAccessLogs: props.serverAccessLogs ?? false,
    customerManagedKey: props.customerManagedKey ?? false,
  };
}
