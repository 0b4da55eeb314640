import type { DynamoSlackRequests } from '../adapters/stores/dynamoSlackRequests.js';
import type { DynamoStateStore } from '../adapters/stores/dynamoStateStore.js';
import type { Permissions } from '../core/slack/index.js';
import type { OnCallDeps } from '../operations/index.js';

/** One structured log line (Powertools Logger in Lambda; the console locally). */
export type Log = (
  level: 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
) => void;

/** What the Slack endpoint needs, wired once per cold start (wiring/slack.ts). */
export interface SlackEndpointDeps {
  /** The app's signing secret (SSM SecureString, cached five minutes). */
  readonly signingSecret: () => Promise<string>;
  /** The same operations as the CLI's `ack`, `silence` and `restart`. */
  readonly onCall: OnCallDeps;
  readonly states: Pick<DynamoStateStore, 'get' | 'loadLive' | 'history'>;
  readonly requests: Pick<DynamoSlackRequests, 'claim' | 'settle'>;
  readonly permissions: Permissions;
  /** Members of a user group, or undefined when Slack will not say. */
  readonly membersOf: (groupId: string) => Promise<readonly string[] | undefined>;
  /** Posts to an interaction's response_url. */
  readonly respond: (url: string, body: unknown) => Promise<void>;
  readonly log: Log;
}
