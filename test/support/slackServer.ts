// The tests use the local mode's Slack stand-in: one implementation of the fake webhook.
export {
  type SlackReceiver as SlackServer,
  startSlackReceiver as startSlackServer,
} from '../../local/slackReceiver.js';
