import { DeliveryError } from '../../../core/base/errors.js';
import type { Alert } from '../../../core/model/alert.js';
import type { ChannelName } from '../../../core/model/channels.js';
import type { Notifier } from '../../../core/model/ports.js';
import { pagerDutyEvents } from '../../../core/oncall/index.js';
import type { RoutingKeyResolver } from './pagerDutyRoutingKey.js';

/** PagerDuty's Events API v2 endpoint. */
export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';

/** Options for the PagerDuty channel. */
export interface PagerDutyNotifierOptions {
  /** The Events API endpoint (a local server in tests). @default PAGERDUTY_EVENTS_URL */
  readonly url?: string;
  /** Per request. @default 5000 */
  readonly timeoutMs?: number;
  /** For tests. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/**
 * Sends alerts to PagerDuty's Events API v2. The `dedup_key` (one per run attempt) is PagerDuty's own
 * idempotency key: a trigger sent twice after a lost answer lands in the same incident.
 */
export class PagerDutyNotifier implements Notifier {
  readonly channel: ChannelName = 'pagerduty';

  constructor(
    private readonly routingKey: RoutingKeyResolver,
    private readonly options: PagerDutyNotifierOptions = {},
  ) {}

  async notify(alert: Alert): Promise<void> {
    // Most alert kinds make no event (reminders, diagnoses): read the secret only when one is due.
    if (pagerDutyEvents(alert, '').length === 0) return;
    const events = pagerDutyEvents(alert, await this.routingKey());
    for (const event of events) await this.post(event);
  }

  private async post(event: unknown): Promise<void> {
    const doFetch = this.options.fetch ?? globalThis.fetch;
    let res: Response;
    try {
      res = await doFetch(this.options.url ?? PAGERDUTY_EVENTS_URL, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(event),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
      });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      throw new DeliveryError(
        `pagerduty: request failed (${e.cause?.code ?? e.name}): ${e.message}`,
        false,
        {},
        { cause: err },
      );
    }
    if (res.ok) return;
    throw pagerDutyError(res.status, (await res.text().catch(() => '')).slice(0, 200));
  }
}

/** 400 (invalid event), 401/403/404 will fail again; 429 (rate limit), 408 and 5xx are worth a retry. */
export function pagerDutyError(status: number, body: string): DeliveryError {
  const permanent = status >= 400 && status < 500 && status !== 429 && status !== 408;
  return new DeliveryError(`pagerduty: HTTP ${status} ${body}`.trim(), permanent, { status, body });
}
