import { HELD_CHANNELS_TEXT } from '../model/channels.js';
// What the endpoint answers a click with: the clicked message again, saying who did what (its buttons for
// that thing gone), or a note only the clicker sees. People are named by Slack mention of their verified id.
import { escapeMrkdwn } from '../render/slack.js';
import { ACTION, type ActionId } from './buttons.js';

/** What a click did. */
export type Done =
  | { readonly kind: 'ack' }
  | { readonly kind: 'silence'; readonly id: string; readonly for: string }
  | { readonly kind: 'restart' };

/** A user id as Slack's verified payload gives it (anything else is never put in a mention). */
const USER_ID = /^[UW][A-Z0-9]{2,20}$/;

const GONE: Readonly<Record<Done['kind'], readonly ActionId[]>> = {
  ack: [ACTION.ack],
  silence: [ACTION.silence1h, ACTION.silence4h, ACTION.silenceResolved],
  restart: [ACTION.restart],
};

function line(done: Done, who: string): string {
  if (done.kind === 'ack')
    return `:white_check_mark: Acknowledged by ${who}: reminders stop until the run's next transition`;
  if (done.kind === 'silence')
    return `:no_bell: Silenced ${done.for} by ${who} (\`${done.id}\`): ${HELD_CHANNELS_TEXT} are held, a summary follows when it ends`;
  return `:arrows_counterclockwise: Restart requested by ${who}: remediation probes the instance again and restarts the run only if the policy and the probe allow; its alert follows`;
}

type Block = { type?: string; elements?: { action_id?: string }[] };

/**
 * The clicked message, replaced: its blocks with the buttons of what was done removed, and one line saying
 * who did it (`response_url` with `replace_original`).
 */
export function afterAction(
  message: { readonly text?: string; readonly blocks?: readonly unknown[] },
  userId: string,
  done: Done,
): { replace_original: true; text: string; blocks: unknown[] } {
  const who = USER_ID.test(userId) ? `<@${userId}>` : 'someone';
  const gone = GONE[done.kind];
  const blocks = (message.blocks ?? [])
    .map((b) => {
      const block = b as Block;
      if (block.type !== 'actions' || !block.elements) return b;
      return { ...block, elements: block.elements.filter((e) => !gone.includes(e.action_id as ActionId)) };
    })
    .filter((b) => (b as Block).type !== 'actions' || ((b as Block).elements?.length ?? 0) > 0);
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: line(done, who) }] });
  return { replace_original: true, text: message.text ?? '', blocks };
}

/** A note only the person who clicked (or typed the command) sees, escaped; the message stays as it is. */
export function ephemeral(text: string): {
  response_type: 'ephemeral';
  replace_original: false;
  text: string;
} {
  return { response_type: 'ephemeral', replace_original: false, text: escapeMrkdwn(text) };
}
