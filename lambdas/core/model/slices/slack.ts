import type { RunState } from '../states.js';

/** A run's thread in the Slack app's channel, kept on its DynamoDB item (`slackThread`). */
export interface SlackThread {
  readonly channel: string;
  /** The parent message, once posted; absent while a sender holds the claim to post it. */
  readonly ts?: string;
  /** The attempt whose first alert opened the thread. */
  readonly attempt: number;
  /** The latest attempt the thread covers: a restart trainwatch issued carries the thread over. */
  readonly through: number;
  /** What the parent shows now. */
  readonly state?: RunState;
  /** A sender posting the parent holds this until `until`; after it, another may take over. */
  readonly claim?: { readonly owner: string; readonly until: number };
}
