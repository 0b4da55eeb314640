import type { OnCallDeps } from '../operations/index.js';
import type { App } from './app.js';
import { ackStore, restartRequests } from './stores.js';

/** The on-call operations' deps from an app (the CLI, the local mode): its stores, its bus for restarts. */
export function onCallOf(app: App): OnCallDeps {
  return {
    states: app.states,
    acks: ackStore(app.config, app.clients.ddb),
    silences: app.silences,
    links: app.deps.links,
    restarts: restartRequests(app.config, app.clients.events),
  };
}
