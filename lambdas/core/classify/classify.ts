import { isRestartable } from './errorTypes.js';
import { compareMatches } from './explain.js';
import { errorHints, type Hint } from './hint.js';
import { logLines } from './lines.js';
import { BUILTIN_PROFILES, DEFAULT_PROFILE } from './profiles/index.js';
import type { Profile, Signal } from './schema.js';
import type { Classification, SignalMatch } from './types.js';

/** A classification plus every signal that matched (best first), for diagnosis and alerts. */
export interface DetailedClassification extends Classification {
  readonly subsystem: string | null;
  readonly line: string | null;
  readonly matches: readonly SignalMatch[];
  /** Where no error signal matched: the lines that read like an error, for a person to read (hint.ts). */
  readonly hints: readonly Hint[];
}

interface Compiled {
  readonly signal: Signal;
  readonly re: RegExp;
  readonly requires?: RegExp;
  readonly unless?: RegExp;
  readonly excludes?: RegExp;
}

const compiledCache = new WeakMap<Profile, Compiled[]>();

function compile(profile: Profile): Compiled[] {
  let c = compiledCache.get(profile);
  if (!c) {
    c = profile.signals.map((s) => ({
      signal: s,
      re: new RegExp(s.pattern, s.flags),
      requires: s.requires ? new RegExp(s.requires, s.flags) : undefined,
      unless: s.unless ? new RegExp(s.unless, s.flags) : undefined,
      excludes: s.excludes ? new RegExp(s.excludes, s.flags) : undefined,
    }));
    compiledCache.set(profile, c);
  }
  return c;
}

/** A built-in profile by name; an unknown or missing name gets the default (a typo must not blind us). */
export function resolveProfile(profile?: Profile | string | null): Profile {
  if (profile && typeof profile === 'object') return profile;
  return BUILTIN_PROFILES.get(profile ?? DEFAULT_PROFILE) ?? BUILTIN_PROFILES.get(DEFAULT_PROFILE)!;
}

function fieldsOf(
  signal: Signal,
  groups: Record<string, string | undefined> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!groups) return out;
  for (const name of signal.fields ?? Object.keys(groups)) {
    const v = groups[name]?.trim();
    if (v) out[name] = v;
  }
  return out;
}

/** Every signal of the profile that matches some line of `text`, best first (each signal once). */
export function matchSignals(text: string, profile?: Profile | string | null): SignalMatch[] {
  const compiled = compile(resolveProfile(profile));
  const lines = logLines(text);
  const matches: SignalMatch[] = [];
  for (const c of compiled) {
    if ((c.requires && !c.requires.test(text)) || c.excludes?.test(text)) continue;
    const need = c.signal.min_lines ?? 1;
    let seen = 0;
    let first: { i: number; m: RegExpExecArray; line: string } | undefined;
    for (let i = 0; i < lines.length && seen < need; i++) {
      const line = lines[i]!;
      const m = c.re.exec(line);
      if (!m || c.unless?.test(line)) continue;
      first ??= { i, m, line };
      seen++;
    }
    if (!first || seen < need) continue;
    const s = c.signal;
    const trimmed = first.line.trim();
    matches.push({
      signal: s.name,
      error_type: s.error_type,
      severity: s.severity,
      subsystem: s.subsystem,
      priority: s.priority,
      restartable: s.restartable ?? isRestartable(s.error_type),
      fields: fieldsOf(s, first.m.groups),
      line: first.i + 1,
      text: trimmed.length > 300 ? `${trimmed.slice(0, 299)}…` : trimmed,
    });
  }
  return matches.sort(compareMatches);
}

/** What the best of `matches` (sorted best first) says; the null classification when none matched. */
function winner(matches: SignalMatch[]): Omit<DetailedClassification, 'hints'> {
  const best = matches[0];
  if (!best)
    return {
      error_type: null,
      restartable: false,
      signal: null,
      severity: null,
      fields: {},
      subsystem: null,
      line: null,
      matches,
    };
  return {
    error_type: best.error_type,
    restartable: best.error_type !== null && best.restartable,
    signal: best.signal,
    severity: best.severity,
    fields: best.fields,
    subsystem: best.subsystem,
    line: best.text,
    matches,
  };
}

/** Classifies an error text, log tail or diagnosis output; `error_type: null` when no error signal matched. */
export function classifyDetailed(text: string, profile?: Profile | string | null): DetailedClassification {
  const w = winner(matchSignals(text, profile));
  // Hints are for a person (explain()): only this entry point reads the text for them, never classify()'s sweep.
  return { ...w, hints: w.error_type === null ? errorHints(text) : [] };
}

/** The contract of `trainwatch classify`: `{error_type, restartable, signal, severity, fields}`. */
export function classify(text: string, profile?: Profile | string | null): Classification {
  const { error_type, restartable, signal, severity, fields } = winner(matchSignals(text, profile));
  return { error_type, restartable, signal, severity, fields };
}
