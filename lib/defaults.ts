import { BUILTIN_PROFILES } from '../lambdas/core/classify/index.js';
import { POLICY_PRESETS } from '../lambdas/core/remediation/index.js';

/** Every default of the construct in one place; props override them, the README quotes them. */
export const DEFAULTS = {
  prefix: 'training-runs',
  scheduleMinutes: 1,
  staleAfter: '10m',
  stallAfter: '30m',
  startupGrace: '15m',
  phaseStaleAfter: { setup: '30m', checkpointing: '30m' } as Readonly<Record<string, string>>,
  slackWebhookParameterName: '/trainwatch/slack-webhook-url',
  profile: 'production',
  restartPolicy: 'none',
  managedTag: { key: 'trainwatch:managed', value: 'true' },
  ssmOutputPrefix: 'trainwatch-ssm-output',
  historyTtlDays: 90,
  runRetentionDays: 90,
  logRetentionDays: 30,
  concurrency: 16,
  sweepMemoryMb: 512,
  sweepTimeoutSeconds: 120,
  sentinelMemoryMb: 256,
  sentinelTimeoutSeconds: 30,
  remediateMemoryMb: 256,
  remediateTimeoutSeconds: 300,
} as const;

/** Classification profiles the runtime ships (one source of truth: lambdas/core/classify). */
export const PROFILES: readonly string[] = [...BUILTIN_PROFILES.keys()];

/** Restart-policy presets the runtime ships (lambdas/core/remediation/policy); a JSON object is a custom policy. */
export const RESTART_PRESETS: readonly string[] = [...POLICY_PRESETS.keys()];

/** What the Lambdas publish with Powertools Metrics (EMF); the dashboard and alarms read them. */
export const METRICS = {
  namespace: 'Trainwatch',
  service: 'trainwatch',
  states: ['PENDING', 'RUNNING', 'WARNING', 'STALLED', 'TIMED_OUT', 'FAILED', 'SUCCEEDED', 'RESTARTING'],
} as const;

/** Lambda's limit on the total size of a function's environment variables. */
export const LAMBDA_ENV_LIMIT_BYTES = 4096;
