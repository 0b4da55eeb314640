// A click on one of an alert's buttons: who may, whether the run is still where the alert said, then the
// same operation as the CLI, once (a retried request finds its claim), and the message updated.
import { ConfigError, ConflictError } from '../core/base/errors.js';
import {
  type ActionId,
  afterAction,
  type Done,
  ephemeral,
  mayDo,
  NEEDS,
  parseButtonValue,
  refusal,
  SILENCE_FOR,
} from '../core/slack/index.js';
import type { BlockActions } from '../events/slackRequest.js';
import { acknowledgeRun, addSilence, requestRestart } from '../operations/index.js';
import type { SlackEndpointDeps } from './deps.js';

/** How people are named in the history: `@maria`, from Slack's verified payload, one safe word. */
export function personOf(user: BlockActions['user']): string {
  const handle = (user.username ?? user.name ?? '').replace(/[^\w.-]/g, '').slice(0, 80);
  return handle ? `@${handle}` : user.id;
}

/** What the click did, or what the clicker is told instead (undefined: nothing to say). */
type Outcome = { readonly done: Done } | { readonly note: string };

async function act(
  d: SlackEndpointDeps,
  id: ActionId,
  target: NonNullable<ReturnType<typeof parseButtonValue>>,
  by: string,
  requestId: string,
  now: number,
): Promise<Done> {
  const expected = { state: target.state, since: target.since };
  if (id === 'trainwatch_ack') {
    await acknowledgeRun(d.onCall, target.runId, by, undefined, now, expected);
    return { kind: 'ack' };
  }
  if (id === 'trainwatch_restart') {
    await requestRestart(d.onCall, target.runId, by, `slack:${requestId}`, expected);
    return { kind: 'restart' };
  }
  const forMs = SILENCE_FOR[id]!;
  // A silence is about the run as the alert showed it: one that moved on needs none.
  const r = await d.states.get(target.runId);
  if (r && (r.state !== target.state || r.since !== target.since))
    throw new ConflictError(
      `${r.runId} moved on: it is ${r.state} now (this was about ${target.state}); nothing was done`,
    );
  const s = await addSilence(
    d.onCall,
    { kind: 'run', runId: target.runId },
    forMs,
    `silenced from Slack by ${by}`,
    by,
    now,
  );
  return {
    kind: 'silence',
    id: s.id,
    for: forMs === 'resolved' ? 'until resolved' : `for ${forMs / 3_600_000}h`,
  };
}

/** Handles a `block_actions` payload; everything it has to say goes to the response_url. */
export async function handleActions(
  d: SlackEndpointDeps,
  p: BlockActions,
  retry: string | undefined,
  now: number,
) {
  const action = p.actions[0];
  const id = action?.action_id as ActionId | undefined;
  const target = action?.value === undefined ? undefined : parseButtonValue(action.value);
  if (!action || !id || !(id in NEEDS) || !target) return; // another app's button, or none of ours
  const by = personOf(p.user);
  const say = (body: unknown) =>
    p.response_url
      ? d
          .respond(p.response_url, body)
          .catch((e: unknown) => d.log('warn', 'response_url failed', { error: String(e) }))
      : Promise.resolve();
  if (!(await mayDo(d.permissions, NEEDS[id], p.user.id, d.membersOf))) {
    d.log('warn', 'slack action refused', { action: id, runId: target.runId, user: p.user.id });
    return say(ephemeral(refusal(NEEDS[id])));
  }
  // Slack's id of this click: a retry of the same request carries it again, and finds it claimed.
  const requestId = p.trigger_id ?? `${p.user.id}:${action.action_ts ?? ''}:${id}:${action.value}`;
  if (!(await d.requests.claim(requestId, id, p.user.id, now))) {
    d.log('info', 'slack request already handled', { action: id, runId: target.runId, retry });
    return;
  }
  let outcome: Outcome;
  try {
    outcome = { done: await act(d, id, target, by, requestId, now) };
    await d.requests.settle(requestId, 'done');
  } catch (e) {
    if (!(e instanceof ConfigError || e instanceof ConflictError)) {
      await d.requests.settle(requestId, 'failed').catch(() => undefined);
      d.log('error', 'slack action failed', { action: id, runId: target.runId, error: String(e) });
      return say(ephemeral(`trainwatch could not do that just now (${(e as Error).message}); try again`));
    }
    // Nothing to do (already acknowledged, the run moved on): the answer says why, and that is final.
    await d.requests.settle(requestId, 'done');
    outcome = { note: e.message };
  }
  d.log('info', 'slack action', {
    action: id,
    runId: target.runId,
    by,
    ...('note' in outcome ? { note: outcome.note } : {}),
  });
  if ('note' in outcome) return say(ephemeral(outcome.note));
  return say(
    p.message ? afterAction(p.message, p.user.id, outcome.done) : ephemeral(`done: ${outcome.done.kind}`),
  );
}
