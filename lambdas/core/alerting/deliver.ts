import { DeliveryError } from '../base/errors.js';
import type { Alert } from '../model/alert.js';
import type { Notifier } from '../model/ports.js';

/** How hard to try each channel. */
export interface DeliverOptions {
  /** Tries per channel, the first included. @default 3 */
  readonly attempts?: number;
  /** Wait before the first retry; doubles each time. @default 200 */
  readonly baseDelayMs?: number;
  /** Injected so tests need not wait. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A channel that gave up, and whether a later try could succeed. */
export interface FailedDelivery {
  readonly channel: string;
  readonly error: string;
  readonly permanent: boolean;
}

/** What happened to one alert on every channel. */
export interface DeliveryReport {
  readonly delivered: string[];
  readonly failed: FailedDelivery[];
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sends `alert` on every channel at once, retrying transient failures with exponential backoff. Never throws. */
export async function deliver(
  alert: Alert,
  notifiers: readonly Notifier[],
  options: DeliverOptions = {},
): Promise<DeliveryReport> {
  const results = await Promise.all(notifiers.map((n) => deliverOne(alert, n, options)));
  return {
    delivered: results.filter((r) => r.ok).map((r) => r.channel),
    failed: results.flatMap((r) => (r.ok ? [] : [r.failure])),
  };
}

type Outcome = { ok: true; channel: string } | { ok: false; channel: string; failure: FailedDelivery };

async function deliverOne(alert: Alert, notifier: Notifier, options: DeliverOptions): Promise<Outcome> {
  const { attempts = 3, baseDelayMs = 200, sleep = realSleep } = options;
  const channel = notifier.channel;
  for (let attempt = 1; ; attempt++) {
    try {
      await notifier.notify(alert);
      return { ok: true, channel };
    } catch (err) {
      // Anything that is not a DeliveryError is a bug or an unknown fault: worth one more try, like a 5xx.
      const permanent = err instanceof DeliveryError && err.permanent;
      if (permanent || attempt >= attempts)
        return { ok: false, channel, failure: { channel, error: describe(err), permanent } };
    }
    try {
      await sleep(baseDelayMs * 2 ** (attempt - 1));
    } catch {
      // A failing sleep must not turn into a thrown deliver(); retry at once instead.
    }
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
