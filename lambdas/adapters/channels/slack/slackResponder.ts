/**
 * Posts to an interaction's `response_url` (Slack answers there for 30 minutes, 5 times): replaces the
 * clicked message, or answers the person alone (`response_type: ephemeral`). The URL is Slack's, from the
 * signed payload, and carries its own authority: no token.
 */
export async function respond(url: string, body: unknown, timeoutMs = 2000): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`response_url answered HTTP ${res.status}`);
}
