// One Slack thread per run attempt: the first alert of an attempt is a channel post (the parent), every
// later one a reply, and the parent is updated to show the run's state now. Pure rules; the Slack
// notifier (adapters/channels/slack/slackAppNotifier.ts) carries them out and stores the thread on the run item.
import type { Alert } from '../model/alert.js';
import type { SlackThread } from '../model/slices/slack.js';
import { RunState } from '../model/states.js';

/** How long a sender may take to post a parent and record it before another sender takes over. */
export const CLAIM_MS = 30_000;

/** How bad a state is for people on call: a move up this scale is a worsening. */
const RANK: Readonly<Record<RunState, number>> = {
  PENDING: 0,
  RUNNING: 0,
  SUCCEEDED: 0,
  RESTARTING: 1,
  WARNING: 2,
  STALLED: 3,
  TIMED_OUT: 4,
  FAILED: 4,
};

/** Alerts about one run go to its thread; a grouped alert or a silence summary is a channel post of its own. */
export function isThreaded(alert: Alert): boolean {
  return alert.kind !== 'group' && alert.kind !== 'summary';
}

/** A restart trainwatch issued: the new attempt stays in the failed attempt's thread. */
function carriesOver(t: SlackThread, alert: Alert): boolean {
  return alert.state === RunState.RESTARTING && alert.attempt === t.through + 1;
}

/** Whether `alert` belongs to thread `t` (a new attempt that trainwatch did not start opens a new one). */
export function covers(t: SlackThread | undefined, alert: Alert): t is SlackThread {
  return t !== undefined && (alert.attempt <= t.through || carriesOver(t, alert));
}

/** The thread after `alert` was posted in it: the attempt it reaches and the state its parent shows. */
export function advance(t: SlackThread, alert: Alert): SlackThread {
  return { ...t, through: Math.max(t.through, alert.attempt), state: alert.state };
}

/** A transition to a worse state is also posted to the channel (`reply_broadcast`), so nobody misses it. */
export function broadcasts(t: SlackThread, alert: Alert): boolean {
  return alert.kind === 'transition' && RANK[alert.state] > RANK[t.state ?? RunState.RUNNING];
}

/**
 * Whether sender `owner` may claim the parent of `alert`'s attempt now: no usable thread, and no live
 * claim but its own.
 */
export function mayClaim(t: SlackThread | undefined, alert: Alert, now: number, owner: string): boolean {
  if (covers(t, alert) && t.ts) return false;
  if (!t?.claim || t.ts) return true;
  // A claim for an older attempt than this alert's, or one whose sender went quiet, is taken over.
  return t.claim.owner === owner || t.attempt < alert.attempt || t.claim.until <= now;
}
