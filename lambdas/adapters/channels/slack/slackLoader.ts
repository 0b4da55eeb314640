// Loads the Slack channel on the first Slack alert: the webhook's, or the Slack app's. In the Lambda bundles,
// esbuild replaces the two names below with "./slack-webhook.mjs" and "./slack-app.mjs" (lib/functions.ts):
// each channel is its own file, imported at run time, and the imports of the sources are dropped from the
// bundle. Elsewhere (the CLI, the local mode, the tests) the names are undefined and the TypeScript modules
// are imported as usual.

import { DeliveryError } from '../../../core/base/errors.js';
import type { Alert } from '../../../core/model/alert.js';
import type { ChannelName } from '../../../core/model/channels.js';
import type { Notifier } from '../../../core/model/ports.js';

declare const __TRAINWATCH_SLACK_WEBHOOK_CHUNK__: string | undefined;
declare const __TRAINWATCH_SLACK_APP_CHUNK__: string | undefined;

/** The webhook channel's module: its own file in a Lambda bundle, the source elsewhere. */
export function loadWebhookChannel(): Promise<typeof import('./slackWebhookChannel.js')> {
  return typeof __TRAINWATCH_SLACK_WEBHOOK_CHUNK__ === 'string'
    ? import(new URL(__TRAINWATCH_SLACK_WEBHOOK_CHUNK__, import.meta.url).href)
    : import('./slackWebhookChannel.js');
}

/** The Slack app channel's module: its own file in a Lambda bundle, the source elsewhere. */
export function loadAppChannel(): Promise<typeof import('./slackAppChannel.js')> {
  return typeof __TRAINWATCH_SLACK_APP_CHUNK__ === 'string'
    ? import(new URL(__TRAINWATCH_SLACK_APP_CHUNK__, import.meta.url).href)
    : import('./slackAppChannel.js');
}

/**
 * A separate file has its own copy of DeliveryError: `instanceof` fails across the two, so its errors are
 * recognised by shape and rebuilt as this bundle's, keeping `permanent` (what deliver() decides on).
 */
function asDeliveryError(e: unknown): unknown {
  if (e instanceof DeliveryError) return e;
  const shaped = e as { message?: string; permanent?: unknown; context?: Record<string, unknown> };
  if (e instanceof Error && typeof shaped.permanent === 'boolean')
    return new DeliveryError(e.message, shaped.permanent, shaped.context ?? {}, { cause: e });
  return e;
}

/** The Slack channel, loaded on its first alert by `load` (which gives undefined when it is not configured). */
export class LazySlackNotifier implements Notifier {
  readonly channel: ChannelName = 'slack';
  private made: Promise<Notifier> | undefined;

  constructor(private readonly load: () => Promise<Notifier | undefined>) {}

  async notify(alert: Alert): Promise<void> {
    let notifier: Notifier;
    try {
      this.made ??= this.load().then((n) => {
        if (!n) throw new DeliveryError('slack: the Slack channel is not configured', true);
        return n;
      });
      notifier = await this.made;
    } catch (e) {
      this.made = undefined;
      throw asDeliveryError(e);
    }
    try {
      await notifier.notify(alert);
    } catch (e) {
      throw asDeliveryError(e);
    }
  }
}
