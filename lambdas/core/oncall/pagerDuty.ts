import type { Alert } from '../model/alert.js';
import { RunState, UNHEALTHY } from '../model/states.js';
import { alertFields, clip } from '../render/fields.js';

/** PagerDuty Events API v2 severities. */
export type PagerDutySeverity = 'critical' | 'error' | 'warning' | 'info';

/** One Events API v2 event (https://developer.pagerduty.com/docs/events-api-v2/trigger-events/). */
export interface PagerDutyEvent {
  readonly routing_key: string;
  readonly event_action: 'trigger' | 'acknowledge' | 'resolve';
  readonly dedup_key: string;
  readonly payload?: {
    readonly summary: string;
    readonly source: string;
    readonly severity: PagerDutySeverity;
    readonly timestamp?: string;
    readonly component?: string;
    readonly group?: string;
    readonly class?: string;
    readonly custom_details?: Record<string, unknown>;
  };
  readonly client?: string;
  readonly client_url?: string;
  readonly links?: readonly { href: string; text: string }[];
}

/** Failures a restart or a new node fixes are errors; ones that need a person to change something, critical. */
const WARNING_TYPES = new Set(['cancelled_preempted']);
const ERROR_TYPES = new Set([
  'nccl',
  'nccl_timeout',
  'distributed_timeout',
  'watchdog_timeout',
  'communication',
]);

/** Severity from the state and the error type. */
export function pagerDutySeverity(state: RunState, errorType?: string | null): PagerDutySeverity {
  if (state === RunState.FAILED) {
    if (errorType && WARNING_TYPES.has(errorType)) return 'warning';
    if (errorType && ERROR_TYPES.has(errorType)) return 'error';
    return 'critical';
  }
  if (state === RunState.TIMED_OUT) return 'critical';
  if (state === RunState.STALLED) return 'error';
  if (state === RunState.WARNING) return 'warning';
  return 'info';
}

/** One incident per run attempt: a reminder or a re-trigger lands in the same incident. */
export function dedupKey(runId: string, attempt: number): string {
  return `trainwatch/${runId}/attempt-${attempt}`;
}

function trigger(alert: Alert, key: string, dedup: string): PagerDutyEvent {
  const details: Record<string, unknown> = Object.fromEntries(
    alertFields(alert).map((f) => [f.label, f.value]),
  );
  Object.assign(details, {
    state: alert.state,
    reason: clip(alert.reason, 2000),
    action: alert.action,
    run_id: alert.runId,
    alert_id: alert.id,
    s3: alert.s3Uri,
    ...(alert.lastLogLine ? { last_log_line: clip(alert.lastLogLine, 1000) } : {}),
    ...(alert.details ? { details: alert.details.slice(0, 20) } : {}),
    ...(alert.runs ? { runs: alert.runs.slice(0, 100).map((r) => `${r.runId} ${r.state}`) } : {}),
  });
  return {
    routing_key: key,
    event_action: 'trigger',
    dedup_key: dedup,
    payload: {
      summary: clip(
        alert.kind === 'summary'
          ? `[trainwatch] ${alert.reason}`
          : `[trainwatch] ${alert.runId} ${alert.state}: ${alert.reason.split('\n')[0]}`,
        1024,
      ),
      source: alert.instanceId ?? `trainwatch/${alert.runId}`,
      severity:
        alert.kind === 'summary'
          ? alert.severity === 'warning'
            ? 'warning'
            : 'critical'
          : pagerDutySeverity(alert.state, alert.errorType),
      timestamp: Number.isFinite(alert.at) ? new Date(alert.at).toISOString() : undefined,
      component: alert.jobName,
      group: alert.jobName,
      class: alert.errorType ?? alert.state,
      custom_details: details,
    },
    client: 'trainwatch',
    client_url: alert.consoleUrl,
    links: [{ href: alert.consoleUrl, text: 'Run files in the AWS console' }],
  };
}

/**
 * The events an alert makes on PagerDuty: trigger on an unhealthy transition, acknowledge on
 * `trainwatch ack`, resolve on recovery or success (after a restart, the old attempt's incident too).
 * Reminders, diagnosis follow-ups and grouped alerts make none: PagerDuty re-notifies by its own
 * escalation, and a reminder must never open a second incident after someone resolved the first.
 */
export function pagerDutyEvents(alert: Alert, routingKey: string): PagerDutyEvent[] {
  const key = dedupKey(alert.runId, alert.attempt);
  const plain = (action: 'acknowledge' | 'resolve', dedup: string): PagerDutyEvent => ({
    routing_key: routingKey,
    event_action: action,
    dedup_key: dedup,
  });
  switch (alert.kind) {
    case 'transition':
      if (UNHEALTHY.has(alert.state)) return [trigger(alert, routingKey, key)];
      if (alert.state === RunState.RUNNING || alert.state === RunState.SUCCEEDED) {
        const events = [plain('resolve', key)];
        if (alert.previousState === RunState.RESTARTING && alert.attempt > 1)
          events.push(plain('resolve', dedupKey(alert.runId, alert.attempt - 1)));
        return events;
      }
      return [];
    case 'acknowledgement':
      return [plain('acknowledge', key)];
    case 'summary':
      return [trigger(alert, routingKey, `trainwatch/${alert.id}`)];
    default:
      return [];
  }
}
