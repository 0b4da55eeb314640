import { buildAlert, type Links } from '../alerting/alerts.js';
import type { Alert } from '../model/alert.js';
import type { RunRecord } from '../model/record.js';
import type { Acknowledgement } from '../model/slices/oncall.js';
import { UNHEALTHY } from '../model/states.js';

/** The acknowledgement still in force, if any. */
export function currentAck(r: RunRecord): Acknowledgement | undefined {
  const ack = r.ack;
  return ack && ack.since === r.since && ack.state === r.state ? ack : undefined;
}

/** Why `trainwatch ack` cannot acknowledge this run, or undefined. */
export function ackProblem(r: RunRecord | undefined, runId: string): string | undefined {
  if (!r) return `no run ${runId} is known yet`;
  if (r.ended) return `run ${runId} ended (${r.state}): nobody is reminded of it any more`;
  if (!UNHEALTHY.has(r.state)) return `run ${runId} is ${r.state}: there is nothing to acknowledge`;
  const ack = currentAck(r);
  if (ack) return `run ${runId} is already acknowledged by ${ack.by}`;
  return undefined;
}

/** The history line of an acknowledgement. */
export function ackLine(by: string, note?: string): string {
  return `acknowledged by ${by}${note ? `: ${note}` : ''}`;
}

/** The acknowledgement and its announcement, for the run as read (`r.version` is the version it had). */
export function acknowledge(
  r: RunRecord,
  by: string,
  note: string | undefined,
  now: number,
  links: Links,
): { ack: Acknowledgement; alert: Alert } {
  const ack: Acknowledgement = { by, at: now, since: r.since, state: r.state, ...(note ? { note } : {}) };
  const alert = buildAlert(
    { ...r, version: r.version + 1 },
    { kind: 'acknowledgement', previousState: r.state, now, links },
  );
  return {
    ack,
    alert: {
      ...alert,
      // The headline already says who; the body carries their note.
      reason: note ?? 'no note given',
      acknowledgedBy: by,
      ...(note ? { note } : {}),
    },
  };
}
