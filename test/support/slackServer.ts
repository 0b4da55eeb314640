// The tests use the local mode's Slack stand-in: one implementation of the fake webhook.

// The Slack app's stand-ins: a local Web API with response URLs, and the endpoint handler behind HTTP.
export { type SlackApi, type SlackMessage, startSlackApi } from '../../local/slackApi.js';
export {
  clickPayload,
  type SlackEndpointServer,
  sendSigned,
  startSlackEndpoint,
  valueFor,
} from '../../local/slackEndpointServer.js';
export {
  type SlackReceiver as SlackServer,
  startSlackReceiver as startSlackServer,
} from '../../local/slackReceiver.js';
