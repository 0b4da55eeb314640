import { BUILTIN_PROFILES } from '../lambdas/core/classify/index.js';
import { POLICY_PRESETS } from '../lambdas/core/remediation/index.js';

/**
 * The defaults of the stack's own settings; props override them, docs/CONFIGURATION.md quotes them. The runtime
 * settings' defaults live with their definitions (lambdas/settings/registry.ts).
 */
export const DEFAULTS = {
  scheduleMinutes: 1,
  logRetentionDays: 30,
  sweepMemoryMb: 512,
  sweepTimeoutSeconds: 120,
  sentinelMemoryMb: 256,
  sentinelTimeoutSeconds: 30,
  remediateMemoryMb: 256,
  remediateTimeoutSeconds: 300,
  /**
   * Each function's reserved concurrency: a flood of S3 events or a bug cannot take the account's
   * concurrency. One sweep a minute needs one (two while a slow one overlaps the next tick).
   */
  reservedConcurrency: { sweep: 2, sentinel: 10, remediate: 5, slack: 5 },
  slackMemoryMb: 256,
  slackTimeoutSeconds: 10,
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
