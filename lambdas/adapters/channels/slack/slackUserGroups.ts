import type { WebClient } from '@slack/web-api';

/** A group's members are re-read after this long: a change in Slack reaches the endpoint within 5 minutes. */
const MAX_AGE_MS = 5 * 60_000;

/**
 * Members of a Slack user group (`usergroups.users.list`, which needs the `usergroups:read` scope: only
 * when a permission names a group). Cached per warm function; a group Slack will not list grants nothing.
 */
export function userGroupMembers(
  client: () => Promise<WebClient>,
  now: () => number = Date.now,
  warn: (message: string, fields: Record<string, unknown>) => void = () => {},
): (groupId: string) => Promise<readonly string[] | undefined> {
  const cache = new Map<string, { at: number; users: readonly string[] }>();
  return async (groupId) => {
    const hit = cache.get(groupId);
    if (hit && now() - hit.at < MAX_AGE_MS) return hit.users;
    try {
      const res = await (await client()).usergroups.users.list({ usergroup: groupId });
      const users = res.users ?? [];
      cache.set(groupId, { at: now(), users });
      return users;
    } catch (e) {
      warn('cannot list a user group (the app needs usergroups:read to check groups)', {
        groupId,
        error: (e as { data?: { error?: string } }).data?.error ?? String(e),
      });
      return undefined;
    }
  };
}
