import type { Duration } from 'aws-cdk-lib';
import { METRICS } from './defaults.js';
import type { RestartCommand } from './props.js';

/** `10m`, `90s`, `2h`: the duration syntax `lambdas/config.ts` parses. */
export function envDuration(d: Duration): string {
  const s = d.toSeconds({ integral: false });
  if (s % 3600 === 0) return `${s / 3600}h`;
  if (s % 60 === 0) return `${s / 60}m`;
  return `${Math.round(s)}s`;
}

/** The settings every function reads (see lambdas/config.ts). */
export interface CommonEnv {
  readonly bucket: string;
  readonly prefix: string;
  readonly table: string;
  readonly topicArn: string;
  readonly eventBus: string;
  readonly slackWebhookParam?: string;
  /** setting: moves to the registry (on-call lifecycle) */
  readonly pagerDutyRoutingKeyParam?: string;
  readonly groupMin?: number;
  readonly staleAfter: Duration;
  readonly stallAfter: Duration;
  readonly startupGrace: Duration;
  readonly phaseStaleAfter: Readonly<Record<string, Duration>>;
  readonly remindEvery?: Duration;
  readonly historyTtlDays: number;
  readonly concurrency: number;
  readonly profile: string;
}

/** The environment of the sweep and the sentinel (remediation adds its own on top). */
export function commonEnvironment(e: CommonEnv): Record<string, string> {
  const env: Record<string, string> = {
    TRAINWATCH_BUCKET: e.bucket,
    TRAINWATCH_PREFIX: e.prefix,
    TRAINWATCH_TABLE: e.table,
    TRAINWATCH_TOPIC_ARN: e.topicArn,
    TRAINWATCH_EVENT_BUS: e.eventBus,
    TRAINWATCH_STALE_AFTER: envDuration(e.staleAfter),
    TRAINWATCH_STALL_AFTER: envDuration(e.stallAfter),
    TRAINWATCH_STARTUP_GRACE: envDuration(e.startupGrace),
    TRAINWATCH_PHASE_STALE_AFTER: Object.entries(e.phaseStaleAfter)
      .map(([phase, d]) => `${phase}=${envDuration(d)}`)
      .join(','),
    TRAINWATCH_HISTORY_TTL_DAYS: String(e.historyTtlDays),
    TRAINWATCH_CONCURRENCY: String(e.concurrency),
    TRAINWATCH_PROFILE: e.profile,
    POWERTOOLS_SERVICE_NAME: METRICS.service,
    POWERTOOLS_METRICS_NAMESPACE: METRICS.namespace,
  };
  if (e.slackWebhookParam) env.TRAINWATCH_SLACK_WEBHOOK_PARAM = e.slackWebhookParam;
  // setting: moves to the registry (on-call lifecycle)
  if (e.pagerDutyRoutingKeyParam) env.TRAINWATCH_PAGERDUTY_ROUTING_KEY_PARAM = e.pagerDutyRoutingKeyParam;
  if (e.groupMin !== undefined) env.TRAINWATCH_GROUP_MIN = String(e.groupMin);
  if (e.remindEvery) env.TRAINWATCH_REMIND_EVERY = envDuration(e.remindEvery);
  return env;
}

/** What remediation reads in addition. */
export function remediationEnvironment(r: {
  diagnoseDocument: string;
  restartDocument: string;
  restartPolicy: string | Readonly<Record<string, unknown>>;
  restartCommands: Readonly<Record<string, RestartCommand>>;
  ssmOutputPrefix: string;
  managedTag: { key: string; value: string };
}): Record<string, string> {
  return {
    TRAINWATCH_DIAGNOSE_DOCUMENT: r.diagnoseDocument,
    TRAINWATCH_RESTART_DOCUMENT: r.restartDocument,
    TRAINWATCH_RESTART_POLICY:
      typeof r.restartPolicy === 'string' ? r.restartPolicy : JSON.stringify(r.restartPolicy),
    TRAINWATCH_RESTART_COMMANDS: JSON.stringify(r.restartCommands),
    TRAINWATCH_SSM_OUTPUT_PREFIX: r.ssmOutputPrefix,
    TRAINWATCH_MANAGED_TAG: `${r.managedTag.key}=${r.managedTag.value}`,
  };
}
