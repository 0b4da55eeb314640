import { THROUGHPUT_DROP_PREFIX } from '../health/throughput.js';
/** What trainwatch puts on EventBridge for every transition. */
export const STATE_CHANGE = { source: 'trainwatch', detailType: 'Training Run State Change' } as const;

/** A person asked for a restart (Slack's Restart now, `trainwatch restart`): remediation probes and decides. */
export const RESTART_REQUEST = {
  source: 'trainwatch',
  detailType: 'Training Run Restart Requested',
} as const;

/** The states whose transition may call for a diagnosis or a restart. */
export const REMEDIABLE_STATES = ['FAILED', 'TIMED_OUT', 'STALLED'] as const;

/** A degraded run diagnosed without any restart: a throughput drop (is NCCL on sockets instead of EFA?). */
export const DIAGNOSED_WARNING = { state: 'WARNING', reasonPrefix: THROUGHPUT_DROP_PREFIX } as const;

/** An EventBridge pattern in CDK's shape (`detailType`); `toEventBridgeJson` gives the API's JSON. */
export interface Pattern {
  readonly source: string[];
  readonly detailType: string[];
  readonly detail: Record<string, unknown>;
}

/**
 * The rules trainwatch relies on, defined once: the stack deploys them (lib/) and the local mode
 * recreates them on the emulator (local/setup.ts), so both route exactly the same events.
 */
export const EventRules = {
  /** `_error` / `_complete` created under the prefix: the sentinel evaluates that run at once. */
  sentinel(bucket: string, prefix: string): Pattern {
    const root = prefix ? `${prefix}/` : '';
    return {
      source: ['aws.s3'],
      detailType: ['Object Created'],
      detail: {
        bucket: { name: [bucket] },
        object: { key: [{ wildcard: `${root}*/_error` }, { wildcard: `${root}*/_complete` }] },
      },
    };
  },
  /** Transitions that need a diagnosis: the remediation function's trigger. */
  remediation(): Pattern {
    return {
      source: [STATE_CHANGE.source],
      detailType: [STATE_CHANGE.detailType],
      detail: {
        kind: ['transition'],
        $or: [
          { state: [...REMEDIABLE_STATES] },
          { state: [DIAGNOSED_WARNING.state], reason: [{ prefix: DIAGNOSED_WARNING.reasonPrefix }] },
        ],
      },
    };
  },
  /** Restart requests from people: the remediation function's second trigger. */
  restartRequest(): Pattern {
    return {
      source: [RESTART_REQUEST.source],
      detailType: [RESTART_REQUEST.detailType],
      detail: { state: [...REMEDIABLE_STATES] },
    };
  },
};

/** The pattern as EventBridge's PutRule takes it. */
export function toEventBridgeJson(p: Pattern): string {
  return JSON.stringify({ source: p.source, 'detail-type': p.detailType, detail: p.detail });
}
