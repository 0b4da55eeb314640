import { randomUUID } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import { DeliveryError } from '../../../core/base/errors.js';
import type { Alert } from '../../../core/model/alert.js';
import type { ChannelName } from '../../../core/model/channels.js';
import type { Notifier } from '../../../core/model/ports.js';
import { slackMessage } from '../../../core/render/slack.js';
import {
  advance,
  type ButtonOptions,
  broadcasts,
  CLAIM_MS,
  covers,
  isThreaded,
  mayClaim,
  onCallButtons,
} from '../../../core/slack/index.js';
import type { DynamoSlackThreads, StoredThread } from '../../stores/dynamoSlackThreads.js';
import { webApiError } from './slackWebApi.js';

/** What the Slack app channel needs. */
export interface SlackAppOptions {
  readonly channel: string;
  /** The bot token's client (made once the token is read). */
  readonly client: () => Promise<WebClient>;
  readonly threads: DynamoSlackThreads;
  /** Draw the on-call buttons (the endpoint exists); `restart`: also Restart now where offered. */
  readonly buttons?: ButtonOptions;
  /** For tests. @default Date.now */
  readonly now?: () => number;
}

type Message = { text: string; blocks: unknown[] };

/**
 * Posts alerts as the Slack app: the first alert of a run attempt opens a thread in the channel, later ones
 * are replies (broadcast to the channel when the run got worse), and the parent is updated to the run's
 * state now. Two senders racing on one run: one claims the thread (a conditional write on the run item)
 * and posts the parent; the other finds the claim, fails for now, and its retry replies in the thread.
 */
export class SlackAppNotifier implements Notifier {
  readonly channel: ChannelName = 'slack';
  /** Names this sender in a claim, so its own retry may go on with what it claimed. */
  private readonly owner = randomUUID();

  constructor(private readonly o: SlackAppOptions) {}

  async notify(alert: Alert): Promise<void> {
    const message = slackMessage(alert, this.o.buttons ? onCallButtons(alert, this.o.buttons) : []);
    if (!isThreaded(alert)) {
      await this.post({ channel: this.o.channel, ...message });
      return;
    }
    for (let tries = 0; tries < 2; tries++) {
      const read = await this.o.threads.get(alert.runId);
      // Not a live run (it ended meanwhile): its alert still goes out, on its own.
      if (!read.live) {
        await this.post({ channel: this.o.channel, ...message });
        return;
      }
      const t = read.thread;
      if (covers(t, alert) && t.ts) return this.reply(alert, t, message);
      const now = this.now();
      if (!mayClaim(t, alert, now, this.owner))
        throw new DeliveryError(`slack: another sender is opening the thread of ${alert.runId}`, false, {
          runId: alert.runId,
        });
      const claimed = await this.o.threads.put(
        alert.runId,
        {
          channel: this.o.channel,
          attempt: alert.attempt,
          through: alert.attempt,
          claim: { owner: this.owner, until: now + CLAIM_MS },
        },
        t?.rev,
      );
      if (claimed) return this.open(alert, claimed, message);
    }
    throw new DeliveryError(`slack: the thread of ${alert.runId} kept changing`, false, {
      runId: alert.runId,
    });
  }

  /** We hold the claim: post the parent, then record its ts (the thread is open from then on). */
  private async open(alert: Alert, claimed: StoredThread, message: Message): Promise<void> {
    const posted = await this.post({ channel: claimed.channel, ...message });
    const opened = await this.o.threads
      .put(
        alert.runId,
        {
          channel: posted.channel ?? claimed.channel,
          ts: posted.ts,
          attempt: alert.attempt,
          through: alert.attempt,
          state: alert.state,
        },
        claimed.rev,
      )
      .catch(() => undefined);
    // The parent is posted, so the alert is delivered; a lost write only means the next alert opens another.
    if (!opened) log('thread not recorded', { runId: alert.runId, ts: posted.ts });
  }

  /** A reply in the thread; then, best effort, the parent shows this alert and the thread records it. */
  private async reply(alert: Alert, t: StoredThread, message: Message): Promise<void> {
    await this.post({
      channel: t.channel,
      thread_ts: t.ts,
      ...(broadcasts(t, alert) ? { reply_broadcast: true } : {}),
      ...message,
    });
    const client = await this.o.client();
    await client.chat
      .update({ channel: t.channel, ts: t.ts!, ...(message as { text: string }) })
      .catch((e: unknown) =>
        log('parent not updated', { runId: alert.runId, error: webApiError(e).message }),
      );
    await this.o.threads
      .put(alert.runId, advance(t, alert), t.rev)
      .catch((e: unknown) => log('thread not advanced', { runId: alert.runId, error: String(e) }));
  }

  private async post(args: Record<string, unknown>): Promise<{ channel?: string; ts: string }> {
    const client = await this.o.client();
    try {
      const res = await client.chat.postMessage({
        unfurl_links: false,
        ...(args as { channel: string; text: string }),
      });
      return { channel: res.channel, ts: res.ts! };
    } catch (e) {
      throw webApiError(e);
    }
  }

  private now(): number {
    return (this.o.now ?? Date.now)();
  }
}

function log(message: string, fields: Record<string, unknown>): void {
  console.warn(JSON.stringify({ level: 'WARN', message: `slack: ${message}`, ...fields }));
}
