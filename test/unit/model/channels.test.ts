import { describe, expect, it } from 'vitest';
import { buildNotifiers } from '../../../lambdas/adapters/channels/notifiers.js';
import { loadConfig } from '../../../lambdas/config.js';
import {
  ALL_CHANNELS,
  CHANNELS,
  GROUPED_CHANNELS,
  HELD_CHANNELS_TEXT,
  PEOPLE_CHANNELS,
} from '../../../lambdas/core/model/channels.js';

const BASE = { TRAINWATCH_BUCKET: 'b', TRAINWATCH_TABLE: 't', AWS_REGION: 'us-east-1' };

describe('the channel registry (lambdas/core/model/channels.ts)', () => {
  it('every notifier the configuration can build names a registered channel, and every channel has one', () => {
    const every = [
      // the webhook, and the Slack app (a bot token and a channel) in turn
      { TRAINWATCH_SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x' },
      { TRAINWATCH_SLACK_BOT_TOKEN: 'xoxb-1', TRAINWATCH_SLACK_CHANNEL: 'C0123ABCD' },
    ].map((slack) =>
      buildNotifiers(
        loadConfig({
          ...BASE,
          ...slack,
          TRAINWATCH_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:alerts',
          TRAINWATCH_PAGERDUTY_ROUTING_KEY: 'R0123456789',
        }),
        // the Slack app keeps threads on the run item: a table client it never uses here (lazy)
        { ddb: {} as never },
      ).map((n) => n.channel),
    );
    for (const channels of every) {
      expect(channels.filter((c) => !ALL_CHANNELS.includes(c))).toEqual([]);
      expect([...channels].sort()).toEqual([...ALL_CHANNELS].sort());
    }
  });

  it('derives who a silence holds, what a group replaces, and the text that says it', () => {
    expect(PEOPLE_CHANNELS).toEqual(['slack', 'sns', 'pagerduty']);
    expect(GROUPED_CHANNELS).toEqual(['slack', 'sns']);
    expect(Object.keys(CHANNELS)).toEqual(ALL_CHANNELS);
    expect(HELD_CHANNELS_TEXT).toBe('Slack, SNS and PagerDuty');
  });
});
