import { z } from 'zod';
import { SLACK_CHANNEL, SLACK_PRINCIPAL } from '../../lambdas/settings/slack.js';
import type { Codec } from './kinds.js';

/** The codecs of the Slack app's kinds: a channel id, and who may press a button. */
export const SLACK_CODECS: { readonly [K in 'slackChannel' | 'slackUsers']: Codec<K> } = {
  slackChannel: {
    zod: () =>
      z.string().regex(SLACK_CHANNEL, "is not a Slack channel id (C0123ABCD, from the channel's details)"),
    fromFile: (v) => v,
    resolve: (v, fail) => {
      if (!SLACK_CHANNEL.test(v)) fail(`${JSON.stringify(v)} is not a Slack channel id (C0123ABCD)`);
      return v;
    },
    toEnv: (v) => v,
  },
  slackUsers: {
    zod: () => z.array(z.string().regex(SLACK_PRINCIPAL, 'is not a Slack user (U…), user group (S…) or *')),
    fromFile: (v) => v,
    resolve: (v, fail) => {
      const bad = v.find((id) => !SLACK_PRINCIPAL.test(id));
      if (bad !== undefined) fail(`${JSON.stringify(bad)} is not a Slack user (U…), user group (S…) or *`);
      return [...v];
    },
    toEnv: (v) => (v.length ? v.join(',') : 'none'),
  },
};
