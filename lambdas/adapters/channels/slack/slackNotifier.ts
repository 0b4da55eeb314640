// The official client, imported by module: its index (CommonJS, which esbuild cannot tree-shake) also loads
// WebhookTrigger, 3.5 KB of each bundle that no function uses. The package has no `exports` map; the lockfile pins it.
import { IncomingWebhookHTTPError, IncomingWebhookRequestError } from '@slack/webhook/dist/errors.js';
import {
  type FetchFunction,
  IncomingWebhook,
  type IncomingWebhookSendArguments,
} from '@slack/webhook/dist/IncomingWebhook.js';
import { DeliveryError } from '../../../core/base/errors.js';
import type { Alert } from '../../../core/model/alert.js';
import type { ChannelName } from '../../../core/model/channels.js';
import type { Notifier } from '../../../core/model/ports.js';
import { slackMessage } from '../../../core/render/slack.js';
import type { WebhookUrlResolver } from './slackWebhookUrl.js';

/** Options for the Slack channel. */
export interface SlackNotifierOptions {
  /** Per request; a slow Slack must not hold a sweep. @default 5000 */
  readonly timeoutMs?: number;
  /** For tests. @default globalThis.fetch */
  readonly fetch?: FetchFunction;
}

/** Posts alerts to a Slack incoming webhook. Retries are left to deliver(): the client makes one try. */
export class SlackNotifier implements Notifier {
  readonly channel: ChannelName = 'slack';
  private webhook: { url: string; client: IncomingWebhook } | undefined;

  constructor(
    private readonly resolveUrl: WebhookUrlResolver,
    private readonly options: SlackNotifierOptions = {},
  ) {}

  async notify(alert: Alert): Promise<void> {
    const client = this.clientFor(await this.resolveUrl());
    const { text, blocks } = slackMessage(alert);
    try {
      await client.send({
        text,
        blocks: blocks as IncomingWebhookSendArguments['blocks'],
        unfurl_links: false,
      });
    } catch (err) {
      throw slackError(err);
    }
  }

  /** One client per URL: the URL may change when the SSM secret is rotated. */
  private clientFor(url: string): IncomingWebhook {
    if (this.webhook?.url !== url)
      this.webhook = {
        url,
        client: new IncomingWebhook(url, {
          timeout: this.options.timeoutMs ?? 5000,
          retryConfig: { retries: 0 },
          ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        }),
      };
    return this.webhook.client;
  }
}

/**
 * Slack answers 4xx with a short code in the body (404 `no_service`, 403 `invalid_token`,
 * 410 `channel_is_archived`): those will not heal by themselves. 429 and 5xx will.
 */
export function slackError(err: unknown): DeliveryError {
  if (err instanceof IncomingWebhookHTTPError) {
    const status = err.statusCode;
    const permanent = status >= 400 && status < 500 && status !== 429 && status !== 408;
    const body = String(err.body ?? '').slice(0, 200);
    return new DeliveryError(
      `slack: HTTP ${status} ${body}`.trim(),
      permanent,
      { status, body },
      { cause: err },
    );
  }
  if (err instanceof IncomingWebhookRequestError) {
    // The webhook URL is a secret: report the cause, never the request.
    const cause = err.original as Error & { cause?: { code?: string } };
    const detail = cause.cause?.code ?? cause.name;
    return new DeliveryError(
      `slack: request failed (${detail}): ${cause.message}`,
      false,
      { detail },
      { cause: err },
    );
  }
  return new DeliveryError(
    `slack: ${err instanceof Error ? err.message : String(err)}`,
    false,
    {},
    { cause: err },
  );
}
