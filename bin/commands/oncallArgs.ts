import { userInfo } from 'node:os';
import { ConfigError } from '../../lambdas/core/base/errors.js';

/** `--now ISO-8601` (tests, replays) or the clock. */
export function nowFrom(value: string | undefined): number {
  if (value === undefined) return Date.now();
  const now = Date.parse(value);
  if (Number.isNaN(now)) throw new ConfigError(`--now ${JSON.stringify(value)} is not an ISO-8601 time`);
  return now;
}

/** Who is acting: `--by`, else the login name; one line, at most 100 characters. */
export function byFrom(value: string | undefined): string {
  let who = value;
  if (who === undefined) {
    try {
      who = process.env.USER ?? userInfo().username;
    } catch {
      who = 'unknown';
    }
  }
  const clean = who.replace(/\s+/g, ' ').trim();
  if (!clean || clean.length > 100) throw new ConfigError('--by must be a name of 1 to 100 characters');
  return clean;
}

/** Free text (a note, a reason): one line, at most `max` characters. */
export function textFrom(name: string, value: string | undefined, max = 500): string | undefined {
  if (value === undefined) return undefined;
  const clean = value.replace(/\s+/g, ' ').trim();
  if (clean.length > max) throw new ConfigError(`--${name} is longer than ${max} characters`);
  return clean || undefined;
}
