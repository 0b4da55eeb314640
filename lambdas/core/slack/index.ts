// The Slack app's pure rules: threads per run attempt, the buttons and who may press them, the status answer.
export type { SlackThread } from '../model/slices/slack.js';
export {
  ACTION,
  type ActionId,
  type ButtonOptions,
  type ButtonTarget,
  buttonValue,
  NEEDS,
  onCallButtons,
  type Permission,
  parseButtonValue,
  SILENCE_FOR,
} from './buttons.js';
export { groupsIn, mayDo, type Permissions, refusal } from './permissions.js';
export { afterAction, type Done, ephemeral } from './replies.js';
export { runAnswer, type SlashAnswer, statusAnswer } from './status.js';
export {
  advance,
  broadcasts,
  CLAIM_MS,
  covers,
  isThreaded,
  mayClaim,
} from './thread.js';
