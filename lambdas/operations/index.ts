import { DynamoAckStore } from '../adapters/dynamoAckStore.js';
import { RestartRequests } from '../adapters/restartRequests.js';
import type { App } from '../app.js';
import type { OnCallDeps } from './onCall.js';

export {
  acknowledgeRun,
  addSilence,
  type Expected,
  MAX_SILENCE_MS,
  type OnCallDeps,
  requestRestart,
} from './onCall.js';

/** The on-call operations' deps from an app (the CLI, the local mode): its stores, its bus for restarts. */
export function onCallOf(app: App): OnCallDeps {
  const c = app.config;
  return {
    states: app.states,
    acks: new DynamoAckStore(c.table, app.clients.ddb, c.historyTtlDays),
    silences: app.silences,
    links: app.deps.links,
    restarts: new RestartRequests(c.eventBus, app.clients.events),
  };
}
