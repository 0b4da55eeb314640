// What people on call do to a run, once: the CLI (`trainwatch ack`, `silence`, `restart`), the Slack app's
// buttons and the local mode all call these, so every path writes the same items and the same history.
import { randomUUID } from 'node:crypto';
import type { RestartRequests } from '../adapters/aws/restartRequests.js';
import type { DynamoAckStore } from '../adapters/stores/dynamoAckStore.js';
import type { DynamoSilenceStore } from '../adapters/stores/dynamoSilenceStore.js';
import type { Links } from '../core/alerting/alerts.js';
import { ConfigError, ConflictError } from '../core/base/errors.js';
import type { StateStore } from '../core/model/ports.js';
import type { Flip, OutboxEntry, RunRecord } from '../core/model/record.js';
import {
  ALL_CHANNELS,
  ackLine,
  acknowledge,
  ackProblem,
  type Silence,
  type SilenceScope,
} from '../core/oncall/index.js';
import { REMEDIABLE_STATES } from '../core/remediation/eventRules.js';

/** The stores the on-call operations write, and where the run's files are (for the announcement). */
export interface OnCallDeps {
  readonly states: Pick<StateStore, 'get'>;
  readonly acks: DynamoAckStore;
  readonly silences: Pick<DynamoSilenceStore, 'putSilence'>;
  readonly links: Links;
  /** Where restart requests go (the remediation function); absent: restarts cannot be requested. */
  readonly restarts?: RestartRequests;
}

/** Where the run was when the person decided (a Slack button's alert): the operation acts only if it still is. */
export interface Expected {
  readonly state: RunRecord['state'];
  readonly since?: number;
}

/** A silence longer than this is a mistake (a forgotten maintenance window pages nobody for weeks). */
export const MAX_SILENCE_MS = 14 * 86_400_000;

function stale(r: RunRecord, expected: Expected | undefined): boolean {
  return (
    expected !== undefined &&
    (r.state !== expected.state || (expected.since !== undefined && r.since !== expected.since))
  );
}

/** Throws ConflictError saying where the run is now, when it moved on from what the person saw. */
function notMovedOn(r: RunRecord, expected: Expected | undefined): void {
  if (stale(r, expected))
    throw new ConflictError(
      `${r.runId} moved on: it is ${r.state} now (this was about ${expected!.state}); nothing was done`,
      { runId: r.runId, state: r.state },
    );
}

/**
 * Acknowledges a run: the ack and its announcement go on the run item in one conditional write (the
 * announcement as an outbox entry due at once: the next sweep sends it once, on every channel the stack
 * has, PagerDuty as `acknowledge`), and a history line saying who. Throws ConfigError when there is
 * nothing to acknowledge, ConflictError when the run moved on.
 */
export async function acknowledgeRun(
  d: OnCallDeps,
  runId: string,
  by: string,
  note: string | undefined,
  now: number,
  expected?: Expected,
): Promise<RunRecord> {
  const r = await d.states.get(runId);
  if (r) notMovedOn(r, expected);
  const problem = ackProblem(r, runId);
  if (problem || !r) throw new ConfigError(problem ?? `no run ${runId}`);
  const { ack, alert } = acknowledge(r, by, note, now, d.links);
  const entry: OutboxEntry = { alert, pending: [...ALL_CHANNELS], attempts: 0, leaseUntil: now };
  const flip: Flip = {
    runId,
    from: r.state,
    to: r.state,
    reason: ackLine(by, note),
    at: now,
    attempt: r.attempt,
    version: r.version + 1,
    errorType: r.errorType,
  };
  await d.acks.acknowledge(r, ack, entry, flip);
  return r;
}

/**
 * Stores a new silence; it takes effect at the next sweep, with no redeploy. `forMs: 'resolved'` silences a
 * run until it is healthy again (at most 14 days): the sweep ends it then.
 */
export async function addSilence(
  d: Pick<OnCallDeps, 'silences'>,
  scope: SilenceScope,
  forMs: number | 'resolved',
  reason: string,
  by: string,
  now: number,
): Promise<Silence> {
  if (forMs === 'resolved' && scope.kind !== 'run')
    throw new ConfigError('a silence until resolved covers one run (--run RUN_ID)');
  const s: Silence = {
    id: `s-${randomUUID().slice(0, 8)}`,
    scope,
    reason,
    by,
    createdAt: now,
    endsAt: now + (forMs === 'resolved' ? MAX_SILENCE_MS : forMs),
    ...(forMs === 'resolved' ? { untilResolved: true } : {}),
  };
  await d.silences.putSilence(s);
  return s;
}

/**
 * Asks remediation to probe the run again and restart it if the restart policy and the probe allow (never
 * a blind restart): one event on the bus, whose `id` makes a redelivery a no-op. Throws ConfigError when
 * the run is not failed, stalled or timed out, ConflictError when it moved on.
 */
export async function requestRestart(
  d: OnCallDeps,
  runId: string,
  by: string,
  id: string,
  expected?: Expected,
): Promise<RunRecord> {
  if (!d.restarts) throw new ConfigError('restart requests are not enabled here (no remediation function)');
  const r = await d.states.get(runId);
  if (!r) throw new ConfigError(`no run ${runId} is known yet`);
  notMovedOn(r, expected);
  if (r.ended) throw new ConfigError(`run ${runId} ended (${r.state}): nothing to restart`);
  const state = REMEDIABLE_STATES.find((s) => s === r.state);
  if (!state)
    throw new ConfigError(`run ${runId} is ${r.state}: only a FAILED, TIMED_OUT or STALLED run is restarted`);
  await d.restarts.put({ runId, state, id, requestedBy: by });
  return r;
}
