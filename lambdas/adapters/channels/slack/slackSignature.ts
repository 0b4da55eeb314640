import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack refuses nothing older than this itself; we refuse it too, so a captured request cannot be replayed later. */
export const MAX_AGE_S = 5 * 60;

/** Why a request is refused, or ok. */
export type SignatureCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Checks Slack's request signature: `X-Slack-Signature` must be `v0=` + hex HMAC-SHA256 of
 * `v0:{X-Slack-Request-Timestamp}:{raw body}` under the app's signing secret, compared in constant time,
 * and the timestamp within five minutes of `nowMs` (either way: a replay, or a forged clock).
 */
export function checkSlackSignature(
  secret: string,
  timestamp: string | undefined,
  signature: string | undefined,
  rawBody: string,
  nowMs: number,
): SignatureCheck {
  if (!timestamp || !signature)
    return { ok: false, reason: 'no X-Slack-Signature or X-Slack-Request-Timestamp' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'malformed timestamp' };
  const age = Math.abs(nowMs / 1000 - Number(timestamp));
  if (age > MAX_AGE_S)
    return { ok: false, reason: `timestamp ${Math.round(age)} s away from now (at most ${MAX_AGE_S})` };
  const expected = Buffer.from(
    `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`,
    'utf8',
  );
  const given = Buffer.from(signature, 'utf8');
  // timingSafeEqual needs equal lengths; a length mismatch says nothing about the secret.
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'signature does not match' };
  return { ok: true };
}

/** Signs a body as Slack does (tests and the local mode send requests signed this way). */
export function signSlackRequest(secret: string, timestamp: number, rawBody: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}
