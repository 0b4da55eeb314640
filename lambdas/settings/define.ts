import { parseDuration } from '../core/base/duration.js';
import { ConfigError } from '../core/base/errors.js';
import { normalisePrefix } from '../core/protocol/files.js';

/** The process environment, or any map of the same names (tests, local mode, synth-time checks). */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * One setting: where it lives (environment variable; config-file key and runtime field when they differ
 * from its construct-props path), its kind, its default and one line of doc. `parse` is the runtime's
 * reading of it: it throws a ConfigError naming the variable. The stack derives its schema, props
 * defaults, validation and the function environment from `kind` (lib/settings/kinds.ts).
 */
export interface Setting<K extends string = string, V = unknown> {
  readonly kind: K;
  readonly env: string;
  /** One line for the "Runtime configuration" table (docs/CONFIGURATION.md). */
  readonly doc: string;
  /** The default as the config file writes it; absent: unset unless given. */
  readonly default?: unknown;
  /** The default as the environment writes it (docs/CONFIGURATION.md quotes it). */
  readonly envDefault?: string;
  /** The default the stack applies when the runtime has none (unset there means off). */
  readonly stackDefault?: unknown;
  /** The config-file key (cdk.json / YAML) when it is not the construct-props path. */
  readonly file?: string;
  /** The field of the runtime `Config` when it is not the construct-props path. */
  readonly runtime?: string;
  readonly min?: number;
  readonly max?: number;
  /** What unset means, for docs/CONFIGURATION.md when there is no default (`the default bus`). */
  readonly unset?: string;
  readonly parse: (env: Env) => V;
}

/** What every definition says; the kind's constructor adds `kind`, `parse` and `envDefault`. */
export interface Base {
  readonly env: string;
  readonly doc: string;
  readonly file?: string;
  readonly runtime?: string;
  readonly unset?: string;
}

/** A trimmed value, undefined when unset or blank. */
export function read(env: Env, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}

function fail(name: string, message: string): never {
  throw new ConfigError(message, { name });
}

function toMs(name: string, raw: string): number {
  const ms = parseDuration(raw);
  if (ms === undefined)
    fail(name, `${name}=${JSON.stringify(raw)} is not a duration (use e.g. 90s, 10m, 2h)`);
  return ms;
}

/** A duration (`90s`, `10m`, `2h`, `1d`) → milliseconds. */
export function duration<const O extends Base & { default: string }>(o: O) {
  return {
    ...o,
    kind: 'duration' as const,
    envDefault: o.default,
    parse: (env: Env): number => toMs(o.env, read(env, o.env) ?? o.default),
  };
}

/** A duration with no default: undefined when unset. */
export function optionalDuration<const O extends Base>(o: O) {
  return {
    ...o,
    kind: 'duration' as const,
    parse: (env: Env): number | undefined => {
      const raw = read(env, o.env);
      return raw === undefined ? undefined : toMs(o.env, raw);
    },
  };
}

/** `setup=30m,checkpointing=30m` → per-phase milliseconds; an empty value means none. */
export function phases<const O extends Base & { default: Readonly<Record<string, string>> }>(o: O) {
  const envDefault = Object.entries(o.default)
    .map(([p, d]) => `${p}=${d}`)
    .join(',');
  return {
    ...o,
    kind: 'phases' as const,
    envDefault,
    parse: (env: Env): Record<string, number> => {
      const raw = env[o.env]?.trim() ?? envDefault;
      const out: Record<string, number> = {};
      for (const part of raw.split(',').filter((p) => p.trim())) {
        const [phase, value] = part.split('=').map((s) => s.trim());
        const ms = value ? parseDuration(value) : undefined;
        if (!phase || ms === undefined)
          fail(o.env, `${o.env}: ${JSON.stringify(part)} is not phase=duration (e.g. checkpointing=45m)`);
        out[phase] = ms;
      }
      return out;
    },
  };
}

function intIn(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    fail(name, `${name}=${JSON.stringify(raw)} must be an integer from ${min} to ${max}`);
  return n;
}

/** An integer from `min` to `max`. */
export function int<const O extends Base & { default: number; min: number; max: number }>(o: O) {
  return {
    ...o,
    kind: 'int' as const,
    envDefault: String(o.default),
    parse: (env: Env): number => intIn(o.env, read(env, o.env), o.default, o.min, o.max),
  };
}

/** A whole number of days (a Duration in the construct props, days in the file and the environment). */
export function days<const O extends Base & { default: number; min: number; max: number }>(o: O) {
  return { ...int(o), kind: 'days' as const };
}

/**
 * An S3 key prefix, without leading or trailing `/`. `allowEmpty`: a set but empty value means the
 * bucket's root (the run prefix); otherwise it means the default.
 */
export function keyPrefix<const O extends Base & { default: string; allowEmpty?: boolean }>(o: O) {
  return {
    ...o,
    kind: 'keyPrefix' as const,
    envDefault: o.default,
    parse: (env: Env): string => {
      const raw = o.allowEmpty ? (env[o.env] ?? o.default) : read(env, o.env) || o.default;
      const { prefix, problem } = normalisePrefix(raw);
      if (problem) fail(o.env, `${o.env}=${JSON.stringify(prefix)} ${problem}`);
      return prefix;
    },
  };
}

/**
 * Text the runtime converts itself (a percentage, a ratio, a list, a switch): `convert` returns undefined
 * for text it cannot read, and the setting fails naming the variable and what it wants.
 */
export function word<const O extends Base & { default: string; want: string }, T>(
  o: O,
  convert: (raw: string) => T | undefined,
) {
  return {
    ...o,
    kind: 'word' as const,
    envDefault: o.default,
    parse: (env: Env): T => {
      const raw = read(env, o.env) ?? o.default;
      const v = convert(raw);
      if (v === undefined) fail(o.env, `${o.env}=${JSON.stringify(raw)} is not ${o.want}`);
      return v;
    },
  };
}
