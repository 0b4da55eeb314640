import { parseDuration } from './core/duration.js';
import { ConfigError } from './core/errors.js';
import { normalisePrefix } from './core/protocol/files.js';
import type { Thresholds } from './core/thresholds.js';
import { loadRemediationConfig, type RemediationConfig } from './remediationConfig.js';

/** trainwatch's configuration, parsed once from the environment (the same names in Lambda and locally). */
export interface Config {
  readonly bucket: string;
  readonly prefix: string;
  readonly table: string;
  readonly topicArn?: string;
  readonly eventBus?: string;
  readonly slackWebhookUrl?: string;
  readonly slackWebhookParam?: string;
  readonly thresholds: Thresholds;
  /** Re-alert while a run stays unhealthy; undefined: never. */
  readonly remindEveryMs?: number;
  readonly historyTtlDays: number;
  readonly concurrency: number;
  readonly region: string;
  readonly endpoint?: string;
  // setting: moves to the registry (on-call lifecycle, TRAINWATCH_GROUP_MIN)
  /** Same-kind unhealthy transitions in one sweep that make one grouped Slack/SNS alert; 0: never group. */
  readonly groupMin: number;
  // setting: moves to the registry (TRAINWATCH_PAGERDUTY_ROUTING_KEY, local mode and tests)
  readonly pagerDutyRoutingKey?: string;
  // setting: moves to the registry (TRAINWATCH_PAGERDUTY_ROUTING_KEY_PARAM, an SSM SecureString name)
  readonly pagerDutyRoutingKeyParam?: string;
  // setting: moves to the registry (TRAINWATCH_PAGERDUTY_URL, the Events API v2 endpoint; tests)
  readonly pagerDutyUrl?: string;
  /** Diagnosis and restart settings (TRAINWATCH_RESTART_POLICY, _RESTART_COMMANDS, _PROFILE, …). */
  readonly remediation: RemediationConfig;
}

type Env = Readonly<Record<string, string | undefined>>;

function required(env: Env, name: string): string {
  const v = env[name]?.trim();
  if (!v) throw new ConfigError(`${name} is required but not set`, { name });
  return v;
}

function duration(env: Env, name: string, fallback: string): number {
  const raw = env[name]?.trim() || fallback;
  const ms = parseDuration(raw);
  if (ms === undefined)
    throw new ConfigError(`${name}=${JSON.stringify(raw)} is not a duration (use e.g. 90s, 10m, 2h)`, {
      name,
    });
  return ms;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`${name}=${JSON.stringify(raw)} must be an integer from ${min} to ${max}`, {
      name,
    });
  return n;
}

/** `setup=30m,checkpointing=45m` → per-phase stale thresholds. */
function phases(env: Env, name: string, fallback: string): Record<string, number> {
  const raw = env[name]?.trim() ?? fallback;
  const out: Record<string, number> = {};
  for (const part of raw.split(',').filter((p) => p.trim())) {
    const [phase, value] = part.split('=').map((s) => s.trim());
    const ms = value ? parseDuration(value) : undefined;
    if (!phase || ms === undefined)
      throw new ConfigError(
        `${name}: ${JSON.stringify(part)} is not phase=duration (e.g. checkpointing=45m)`,
        {
          name,
        },
      );
    out[phase] = ms;
  }
  return out;
}

function optional(env: Env, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}

/** Parses and validates the configuration; throws ConfigError naming the first bad setting. */
export function loadConfig(env: Env): Config {
  const { prefix, problem } = normalisePrefix(env.TRAINWATCH_PREFIX ?? 'training-runs');
  if (problem)
    throw new ConfigError(`TRAINWATCH_PREFIX=${JSON.stringify(prefix)} ${problem}`, {
      name: 'TRAINWATCH_PREFIX',
    });
  const topicArn = optional(env, 'TRAINWATCH_TOPIC_ARN');
  if (topicArn && !/^arn:aws[\w-]*:sns:[\w-]+:\d{12}:[\w-]+$/.test(topicArn))
    throw new ConfigError(`TRAINWATCH_TOPIC_ARN=${JSON.stringify(topicArn)} is not an SNS topic ARN`, {
      name: 'TRAINWATCH_TOPIC_ARN',
    });
  const slackWebhookUrl = optional(env, 'TRAINWATCH_SLACK_WEBHOOK_URL');
  if (slackWebhookUrl && !/^https?:\/\/\S+$/.test(slackWebhookUrl))
    throw new ConfigError('TRAINWATCH_SLACK_WEBHOOK_URL is not an http(s) URL', {
      name: 'TRAINWATCH_SLACK_WEBHOOK_URL',
    });
  const remind = optional(env, 'TRAINWATCH_REMIND_EVERY');
  // setting: moves to the registry
  const pagerDutyUrl = optional(env, 'TRAINWATCH_PAGERDUTY_URL');
  if (pagerDutyUrl && !/^https?:\/\/\S+$/.test(pagerDutyUrl))
    throw new ConfigError('TRAINWATCH_PAGERDUTY_URL is not an http(s) URL', {
      name: 'TRAINWATCH_PAGERDUTY_URL',
    });
  return {
    bucket: required(env, 'TRAINWATCH_BUCKET'),
    prefix,
    table: required(env, 'TRAINWATCH_TABLE'),
    topicArn,
    eventBus: optional(env, 'TRAINWATCH_EVENT_BUS'),
    slackWebhookUrl,
    slackWebhookParam: optional(env, 'TRAINWATCH_SLACK_WEBHOOK_PARAM'),
    thresholds: {
      staleAfterMs: duration(env, 'TRAINWATCH_STALE_AFTER', '10m'),
      stallAfterMs: duration(env, 'TRAINWATCH_STALL_AFTER', '30m'),
      startupGraceMs: duration(env, 'TRAINWATCH_STARTUP_GRACE', '15m'),
      phaseStaleAfterMs: phases(env, 'TRAINWATCH_PHASE_STALE_AFTER', 'setup=30m,checkpointing=30m'),
    },
    remindEveryMs: remind ? duration(env, 'TRAINWATCH_REMIND_EVERY', remind) : undefined,
    historyTtlDays: int(env, 'TRAINWATCH_HISTORY_TTL_DAYS', 90, 1, 3650),
    concurrency: int(env, 'TRAINWATCH_CONCURRENCY', 16, 1, 256),
    region: optional(env, 'AWS_REGION') ?? optional(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1',
    endpoint: optional(env, 'AWS_ENDPOINT_URL'),
    remediation: loadRemediationConfig(env),
    // setting: moves to the registry (the four on-call settings)
    groupMin: int(env, 'TRAINWATCH_GROUP_MIN', 3, 0, 1000),
    pagerDutyRoutingKey: optional(env, 'TRAINWATCH_PAGERDUTY_ROUTING_KEY'),
    pagerDutyRoutingKeyParam: optional(env, 'TRAINWATCH_PAGERDUTY_ROUTING_KEY_PARAM'),
    pagerDutyUrl,
  };
}
