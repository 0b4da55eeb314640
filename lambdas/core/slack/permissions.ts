import type { Permission } from './buttons.js';

/** Who may press what: Slack user ids (U…, W…), user-group ids (S…), or `*` for anyone in the workspace. */
export type Permissions = Readonly<Record<Permission, readonly string[]>>;

/** The user groups a permission names: their members must be looked up (usergroups.users.list). */
export function groupsIn(allowed: readonly string[]): string[] {
  return allowed.filter((id) => id.startsWith('S'));
}

/**
 * Whether `userId` may do `what`: listed by id, `*`, or a member of a listed group. `membersOf` gives a
 * group's members (the endpoint asks Slack, and caches); a group it cannot read grants nothing.
 */
export async function mayDo(
  p: Permissions,
  what: Permission,
  userId: string,
  membersOf: (groupId: string) => Promise<readonly string[] | undefined>,
): Promise<boolean> {
  const allowed = p[what];
  if (allowed.includes('*') || allowed.includes(userId)) return true;
  for (const group of groupsIn(allowed)) if ((await membersOf(group))?.includes(userId)) return true;
  return false;
}

/** The refusal people read: what they tried, and which setting decides it. */
export function refusal(what: Permission): string {
  const setting = { ack: 'slack.ackBy', silence: 'slack.silenceBy', restart: 'slack.restartBy' }[what];
  return what === 'restart'
    ? `You may not restart runs from Slack (${setting} does not list you or a group of yours).`
    : `You may not ${what === 'ack' ? 'acknowledge' : 'silence'} runs from Slack (${setting} does not list you or a group of yours).`;
}
