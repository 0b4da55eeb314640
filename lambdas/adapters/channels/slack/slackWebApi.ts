import { ErrorCode, LogLevel, type WebAPICallError, WebClient } from '@slack/web-api';
import { DeliveryError } from '../../../core/base/errors.js';

/** Slack's official Web API client, one attempt per call: the run's outbox retries what failed. */
export function webClient(token: string, apiUrl?: string, timeoutMs = 5000): WebClient {
  return new WebClient(token, {
    ...(apiUrl ? { slackApiUrl: apiUrl } : {}),
    timeout: timeoutMs,
    retryConfig: { retries: 0 },
    // A 429 fails at once instead of sleeping inside a sweep: the outbox retries it with backoff.
    rejectRateLimitedCalls: true,
    logLevel: LogLevel.ERROR,
  });
}

/** Answers (`ok: false, error: …`) that will not heal by themselves: a bad token, a missing channel, bad blocks. */
const PERMANENT = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'missing_scope',
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'invalid_blocks',
  'invalid_arguments',
  'msg_too_long',
  'message_not_found',
  'cant_update_message',
  'restricted_action',
]);

/** A Web API failure as a DeliveryError: permanent for the answers above and 4xx, transient otherwise. */
export function webApiError(err: unknown): DeliveryError {
  const e = err as WebAPICallError & { data?: { error?: string }; statusCode?: number; original?: Error };
  if (e?.code === ErrorCode.PlatformError) {
    const code = e.data?.error ?? 'unknown';
    return new DeliveryError(`slack: ${code}`, PERMANENT.has(code), { code }, { cause: err });
  }
  if (e?.code === ErrorCode.RateLimitedError)
    return new DeliveryError('slack: rate limited (429)', false, { code: 'ratelimited' }, { cause: err });
  if (e?.code === ErrorCode.HTTPError) {
    const status = e.statusCode ?? 0;
    const permanent = status >= 400 && status < 500 && status !== 408 && status !== 429;
    return new DeliveryError(`slack: HTTP ${status}`, permanent, { status }, { cause: err });
  }
  // A network fault or a timeout: worth another try. The token is a secret: never print the request.
  const detail = e?.original?.message ?? (err instanceof Error ? err.message : String(err));
  return new DeliveryError(`slack: request failed: ${detail}`, false, {}, { cause: err });
}
