// Loads the Slack channel (adapters/slackChannel.ts) on the first Slack alert. In the Lambda bundles,
// esbuild replaces __TRAINWATCH_SLACK_CHUNK__ with "./slack.mjs" (lib/functions.ts): the channel is that
// separate file, imported at run time, and the import below is dropped from the bundle. Elsewhere (the CLI,
// the local mode, the tests) the name is undefined and the TypeScript module is imported as usual.
import type { Alert } from '../core/alert.js';
import { DeliveryError } from '../core/errors.js';
import type { Notifier } from '../core/ports.js';

declare const __TRAINWATCH_SLACK_CHUNK__: string | undefined;

/** The Slack channel's module. */
export type SlackChannelModule = typeof import('./slackChannel.js');

/** Imports the Slack channel's module: its own file in a Lambda bundle, the source elsewhere. */
export function loadSlackChannel(): Promise<SlackChannelModule> {
  return typeof __TRAINWATCH_SLACK_CHUNK__ === 'string'
    ? import(new URL(__TRAINWATCH_SLACK_CHUNK__, import.meta.url).href)
    : import('./slackChannel.js');
}

/**
 * The separate file has its own copy of DeliveryError: `instanceof` fails across the two, so its errors are
 * recognised by shape and rebuilt as this bundle's, keeping `permanent` (what deliver() decides on).
 */
function asDeliveryError(e: unknown): unknown {
  if (e instanceof DeliveryError) return e;
  const shaped = e as { message?: string; permanent?: unknown; context?: Record<string, unknown> };
  if (e instanceof Error && typeof shaped.permanent === 'boolean')
    return new DeliveryError(e.message, shaped.permanent, shaped.context ?? {}, { cause: e });
  return e;
}

/** The Slack channel, loaded on its first alert; `make` builds it from the loaded module (undefined: none). */
export class LazySlackNotifier implements Notifier {
  readonly channel = 'slack';
  private made: Promise<Notifier> | undefined;

  constructor(private readonly make: (m: SlackChannelModule) => Notifier | undefined) {}

  async notify(alert: Alert): Promise<void> {
    let notifier: Notifier;
    try {
      this.made ??= loadSlackChannel().then((m) => {
        const n = this.make(m);
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
