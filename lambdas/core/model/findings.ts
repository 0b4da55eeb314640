import { formatDuration } from '../base/duration.js';
import { MAX_JSON_BYTES } from '../protocol/files.js';
import { toEpochMs } from '../protocol/parse.js';
import type { AttemptFacts } from './slices/attempt.js';

type Findings = NonNullable<AttemptFacts['findings']>;

/** A heartbeat timestamp further than this from S3's LastModified is reported as clock skew. */
export const MAX_SKEW_MS = 5 * 60_000;

/** The attempt's findings with `key` set to `finding`, or cleared when there is none. */
export function withFinding(
  findings: Findings | undefined,
  key: string,
  finding: string | undefined,
): Findings | undefined {
  const next = { ...(findings ?? {}) };
  if (finding) next[key] = finding;
  else delete next[key];
  return Object.keys(next).length ? next : undefined;
}

/** A clock-skew (or unparseable timestamp) finding for a heartbeat's own time against S3's LastModified. */
export function skew(
  file: string,
  field: string,
  stamp: string | number | undefined,
  lastModified: number,
): string | undefined {
  const at = toEpochMs(stamp);
  if (at === undefined)
    return stamp === undefined ? undefined : `${file}: ${field} ${JSON.stringify(stamp)} is not a timestamp`;
  const diff = at - lastModified;
  if (Math.abs(diff) <= MAX_SKEW_MS) return undefined;
  const dir = diff > 0 ? 'ahead of' : 'behind';
  return `clock skew: ${file} ${field} is ${formatDuration(Math.abs(diff))} ${dir} S3's clock; check NTP on the instance`;
}

/** An oversized JSON file is judged from its LIST size alone: the sweep never downloads it. */
export function tooBig(file: string, size: number): { ok: false; problem: string } | undefined {
  return size > MAX_JSON_BYTES
    ? { ok: false, problem: `${file} is ${size} bytes (at most ${MAX_JSON_BYTES})` }
    : undefined;
}
