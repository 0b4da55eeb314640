import { ConfigError } from '../core/base/errors.js';
import { type Base, type Env, read } from './define.js';

/** The Slack app's settings: a channel id, and who may press which button (Slack ids, `*` for anyone). */

/** A Slack channel id (C… or G…): names change, and `chat.update` takes ids only. */
export const SLACK_CHANNEL = /^[CG][A-Z0-9]{6,20}$/;
/** A user (U…, W…) or a user group (S…); `*` is anyone in the workspace. */
export const SLACK_PRINCIPAL = /^(\*|[UWS][A-Z0-9]{4,20})$/;

function fail(name: string, message: string): never {
  throw new ConfigError(message, { name });
}

/** The channel the Slack app posts to; undefined when unset. */
export function slackChannel<const O extends Base>(o: O) {
  return {
    ...o,
    kind: 'slackChannel' as const,
    parse: (env: Env): string | undefined => {
      const v = read(env, o.env);
      if (v !== undefined && !SLACK_CHANNEL.test(v))
        fail(
          o.env,
          `${o.env}=${JSON.stringify(v)} is not a Slack channel id (C0123ABCD, from the channel's details)`,
        );
      return v;
    },
  };
}

/** Who may press a button: Slack user and user-group ids, `*` for anyone, `none` (or an empty list) for nobody. */
export function slackUsers<const O extends Base & { default: readonly string[] }>(o: O) {
  const envDefault = o.default.length ? o.default.join(',') : 'none';
  return {
    ...o,
    kind: 'slackUsers' as const,
    envDefault,
    parse: (env: Env): string[] => {
      const raw = read(env, o.env) ?? envDefault;
      if (raw === 'none') return [];
      const ids = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = ids.find((id) => !SLACK_PRINCIPAL.test(id));
      if (bad !== undefined)
        fail(o.env, `${o.env}: ${JSON.stringify(bad)} is not a Slack user (U…), user group (S…), * or none`);
      return ids;
    },
  };
}
