import { afterEach, describe, expect, it } from 'vitest';
import { runSweep } from '../../lambdas/handlers/sweep.js';
import { createApp } from '../../lambdas/wiring/app.js';
import { awsClients } from '../../local/awsClients.js';
import { type PagerDutyReceiver, startPagerDutyReceiver } from '../../local/pagerDutyReceiver.js';
import { metadata, type TestEnvironment, testEnvironment } from '../support/environment.js';
import { type FaultProxy, startFaultProxy } from '../support/faultProxy.js';

const MIN = 60_000;
let t: TestEnvironment;
let pd: PagerDutyReceiver;
const proxies: FaultProxy[] = [];

afterEach(async () => {
  for (const p of proxies.splice(0)) await p.close();
  await t.close();
  await pd.close();
});

/** How many alerts arrived on a channel, and how many of those were extra copies of one already there. */
function tally(ids: string[]): { distinct: number; duplicates: number } {
  const distinct = new Set(ids).size;
  return { distinct, duplicates: ids.length - distinct };
}

describe('delivery under faults', () => {
  it.each([
    ['alone', '0'],
    ['grouped', '3'],
  ])(
    'loses no alert (%s on Slack/SNS) when a quarter of AWS, Slack and PagerDuty answers are refused or lost, and counts duplicates per channel',
    async (mode, groupMin) => {
      pd = await startPagerDutyReceiver();
      t = await testEnvironment({ TRAINWATCH_GROUP_MIN: groupMin, TRAINWATCH_CONCURRENCY: '1' });
      const options = { refuse: 0.12, lose: 0.13 };
      const aws = await startFaultProxy(t.env.AWS_ENDPOINT_URL!, {
        seed: 7,
        ...options,
        stripFirstSegment: true,
      });
      const slack = await startFaultProxy(t.slack.url, { seed: 8, ...options });
      const pager = await startFaultProxy(pd.url, { seed: 9, ...options });
      proxies.push(aws, slack, pager);
      const env = {
        ...t.env,
        AWS_ENDPOINT_URL: aws.url,
        TRAINWATCH_SLACK_WEBHOOK_URL: slack.url,
        TRAINWATCH_PAGERDUTY_ROUTING_KEY: 'R0UT1NGKEY0123456789abcdefABCDEF',
        TRAINWATCH_PAGERDUTY_URL: pager.url,
      };
      // The Lambda's SDK defaults: three attempts per AWS call.
      const app = createApp(env, awsClients({ region: 'us-east-1', endpoint: aws.url, maxAttempts: 3 }));
      const ids = Array.from({ length: 10 }, (_, i) => `f-${i}`);
      for (const id of ids) {
        await t.put(id, 'metadata', metadata(id));
        // One error type and message for all: the grouped mode groups them.
        await t.put(
          id,
          'error',
          'RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1275, unhandled system error',
        );
      }
      const now = Date.now();
      // Ten transitions in the first sweep; later sweeps pick up whatever a lost answer left in an outbox.
      for (const at of [0, 3, 7, 15, 31, 63, 127]) await runSweep(app, now + at * MIN);

      expect(aws.stats.refused + aws.stats.lost).toBeGreaterThan(0);
      expect(slack.stats.lost + pager.stats.lost).toBeGreaterThan(0);
      for (const id of ids) {
        const r = (await t.app().states.get(id))!;
        expect(r.state).toBe('FAILED');
        expect(r.outbox ?? {}).toEqual({});
        expect(r.undelivered ?? []).toEqual([]);
      }
      // A run reaches Slack/SNS alone or inside a grouped alert: count the runs each message names.
      const named = (m: unknown) => [...new Set(JSON.stringify(m).match(/f-\d/g) ?? [])];
      const slackRuns = t.slack.received.flatMap(named);
      const snsRuns = (await t.snsMessages()).flatMap((m) => named(m.Message));
      const eventIds = (await t.events()).map((e) => String(e.detail.id));
      const triggers = pd.received
        .filter((e) => e.event_action === 'trigger')
        .map((e) => String(e.dedup_key));
      const channels = {
        slack: tally(slackRuns),
        sns: tally(snsRuns),
        events: tally(eventIds),
        pagerduty: tally(triggers),
      };
      // No alert lost: every transition reached every channel at least once.
      for (const c of Object.values(channels)) expect(c.distinct).toBe(10);
      // One key per alert: EventBridge copies carry the same detail.id, PagerDuty's the same dedup_key.
      for (const id of eventIds) expect(id).toMatch(/^f-\d:\d+:transition$/);
      expect(new Set(triggers)).toEqual(new Set(ids.map((id) => `trainwatch/${id}/attempt-1`)));
      // Every extra copy comes from an answer that never arrived: bounded by the faults injected.
      expect(channels.sns.duplicates + channels.events.duplicates).toBeLessThanOrEqual(
        aws.stats.lost + aws.stats.refused,
      );
      expect(channels.slack.duplicates).toBeLessThanOrEqual(
        slack.stats.lost + aws.stats.lost + aws.stats.refused,
      );
      console.log(
        JSON.stringify({
          mode,
          faults: {
            aws: {
              requests: aws.stats.forwarded + aws.stats.refused,
              refused: aws.stats.refused,
              lost: aws.stats.lost,
            },
            slack: { refused: slack.stats.refused, lost: slack.stats.lost },
            pagerduty: { refused: pager.stats.refused, lost: pager.stats.lost },
          },
          channels,
        }),
      );
      if (mode === 'grouped') expect(t.slack.received.length).toBeLessThan(10);
    },
    120_000,
  );
});
