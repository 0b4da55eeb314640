import { runIdProblem } from '../core/protocol/runId.js';
import { runAnswer, type SlashAnswer, statusAnswer } from '../core/slack/index.js';
import type { SlashCommand } from '../events/slackRequest.js';
import type { SlackEndpointDeps } from './deps.js';

const USAGE =
  'usage: `/trainwatch status` (the live runs) or `/trainwatch status RUN_ID` (one run and its history)';

const note = (text: string): SlashAnswer => ({ response_type: 'ephemeral', text });

/** `/trainwatch status [RUN_ID]`: read only, answered in the HTTP response (ephemeral), so within Slack's 3 s. */
export async function handleCommand(
  d: SlackEndpointDeps,
  c: SlashCommand,
  now: number,
): Promise<SlashAnswer> {
  const [verb, runId, ...rest] = c.text.trim().split(/\s+/).filter(Boolean);
  if ((verb ?? 'status') !== 'status' || rest.length > 0) return note(USAGE);
  if (runId === undefined) return statusAnswer([...(await d.states.loadLive()).values()], now);
  // A run id goes into a DynamoDB key: only a valid one (and it is echoed escaped, never as mrkdwn).
  if (runIdProblem(runId)) return note(`not a run id. ${USAGE}`);
  const r = await d.states.get(runId);
  if (!r) return note(`no run ${runId} is known`);
  return runAnswer(r, await d.states.history(runId, 10), now);
}
