// The buttons on a run's alert and what each one carries: the run, and the state it was in when the alert
// was sent, so a click on an old message is recognised as stale instead of acting on a run that moved on.
import type { Alert } from '../model/alert.js';
import { RunState, UNHEALTHY } from '../model/states.js';

/** What a button asks for (its Slack `action_id`). */
export const ACTION = {
  ack: 'trainwatch_ack',
  silence1h: 'trainwatch_silence_1h',
  silence4h: 'trainwatch_silence_4h',
  silenceResolved: 'trainwatch_silence_resolved',
  restart: 'trainwatch_restart',
} as const;
export type ActionId = (typeof ACTION)[keyof typeof ACTION];

/** The three permissions a person may have (settings `slack.ackBy`, `silenceBy`, `restartBy`). */
export type Permission = 'ack' | 'silence' | 'restart';

/** The permission each button needs. */
export const NEEDS: Readonly<Record<ActionId, Permission>> = {
  trainwatch_ack: 'ack',
  trainwatch_silence_1h: 'silence',
  trainwatch_silence_4h: 'silence',
  trainwatch_silence_resolved: 'silence',
  trainwatch_restart: 'restart',
};

/** How long each Silence button silences; `resolved`: until the run is healthy again. */
export const SILENCE_FOR: Readonly<Partial<Record<ActionId, number | 'resolved'>>> = {
  trainwatch_silence_1h: 3_600_000,
  trainwatch_silence_4h: 4 * 3_600_000,
  trainwatch_silence_resolved: 'resolved',
};

/** What a button's `value` says: the run, and where it was when the alert went out. */
export interface ButtonTarget {
  readonly runId: string;
  readonly state: RunState;
  readonly attempt: number;
  readonly since: number;
}

/** Which buttons the notifier may draw (the endpoint exists; Restart now only where someone may press it). */
export interface ButtonOptions {
  readonly restart: boolean;
}

/** A button's value: compact JSON (Slack allows 2,000 characters; a run id has at most 128). */
export function buttonValue(t: ButtonTarget): string {
  return JSON.stringify({ r: t.runId, s: t.state, a: t.attempt, t: t.since });
}

/** The target a value names, or undefined when it is not one of ours. */
export function parseButtonValue(value: string): ButtonTarget | undefined {
  try {
    const v = JSON.parse(value) as { r?: unknown; s?: unknown; a?: unknown; t?: unknown };
    if (typeof v.r !== 'string' || typeof v.s !== 'string' || !(v.s in RunState)) return undefined;
    if (!Number.isInteger(v.a) || !Number.isFinite(v.t)) return undefined;
    return { runId: v.r, state: v.s as RunState, attempt: v.a as number, since: v.t as number };
  } catch {
    return undefined;
  }
}

const button = (text: string, actionId: ActionId, value: string, extra: object = {}) => ({
  type: 'button',
  text: { type: 'plain_text', text, emoji: true },
  action_id: actionId,
  value,
  ...extra,
});

/**
 * The on-call buttons of a run's alert while it is unhealthy: Acknowledge (not on the announcement of an
 * acknowledgement), Silence 1h / 4h / until resolved, and Restart now where remediation offered it, behind
 * a confirmation dialog. None on a healthy run's alert, a grouped alert or a silence summary.
 */
export function onCallButtons(alert: Alert, o: ButtonOptions): unknown[] {
  if (!UNHEALTHY.has(alert.state) || alert.runs || alert.since === undefined) return [];
  const value = buttonValue({
    runId: alert.runId,
    state: alert.state,
    attempt: alert.attempt,
    since: alert.since,
  });
  const out: unknown[] = [];
  if (alert.kind !== 'acknowledgement')
    out.push(button('Acknowledge', ACTION.ack, value, { style: 'primary' }));
  out.push(
    button('Silence 1h', ACTION.silence1h, value),
    button('Silence 4h', ACTION.silence4h, value),
    button('Silence until resolved', ACTION.silenceResolved, value),
  );
  if (o.restart && alert.offersRestart)
    out.push(
      button('Restart now', ACTION.restart, value, {
        style: 'danger',
        confirm: {
          title: { type: 'plain_text', text: 'Restart this run?' },
          text: {
            type: 'plain_text',
            text: `trainwatch probes the instance again, then restarts the run from its latest checkpoint as attempt ${alert.attempt + 1}, only if the restart policy and the probe allow it.`,
          },
          confirm: { type: 'plain_text', text: 'Restart' },
          deny: { type: 'plain_text', text: 'Cancel' },
          style: 'danger',
        },
      }),
    );
  return out;
}
