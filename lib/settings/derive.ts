import type { z } from 'zod';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import {
  getPath,
  SETTINGS,
  type SettingEntry,
  type SettingTree,
  setPath,
} from '../../lambdas/settings/index.js';
import { entries } from '../../lambdas/settings/load.js';
import { CODECS, type Kind, type KindTypes } from './kinds.js';

/** The user's settings (not the wiring), with their construct-props paths. */
export const USER_SETTINGS: readonly SettingEntry[] = entries(SETTINGS as unknown as SettingTree);

// Loose codec view for the generic walks below (each codec is typed by its kind in kinds.ts).
type AnyCodec = {
  zod: (s: object) => z.ZodType;
  fromFile: (v: unknown) => unknown;
  resolve: (v: unknown, fail: (p: string) => never, s: object) => unknown;
  toEnv: (v: unknown) => string;
};
const codec = (kind: string) => CODECS[kind as Kind] as unknown as AnyCodec;

/** The config-file key of a setting (cdk.json / YAML). */
export const fileKey = (e: SettingEntry): string => e.setting.file ?? e.path;

/** The default the stack applies, in config-file form (undefined: unset). */
const fileDefault = (e: SettingEntry): unknown => e.setting.stackDefault ?? e.setting.default;

// Types: the settings of one file group, and each setting's props and resolved types.
type KindOf<D> = D extends { kind: infer K extends Kind } ? K : never;
type HasDefault<D> = D extends { default: unknown }
  ? true
  : D extends { stackDefault: unknown }
    ? true
    : false;
type FileKey<D, P extends string> = D extends { file: infer F extends string } ? F : P;
type FlatFile<T, Pre extends string = ''> = {
  [K in keyof T & string]: T[K] extends { parse: unknown }
    ? { [_ in FileKey<T[K], `${Pre}${K}`>]: T[K] }
    : FlatFile<T[K], `${Pre}${K}.`>;
}[keyof T & string];
type Merge<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type Files = Merge<FlatFile<typeof SETTINGS>>;
type FileSchema<D> =
  HasDefault<D> extends true
    ? z.ZodDefault<z.ZodType<KindTypes[KindOf<D>]['file']>>
    : z.ZodOptional<z.ZodType<KindTypes[KindOf<D>]['file']>>;
/** The zod fields of the settings whose config-file key is in group `G` ('' for the root). */
export type FileFields<G extends string> = {
  [K in keyof Files as G extends ''
    ? K extends `${string}.${string}`
      ? never
      : K
    : K extends `${G}.${infer N}`
      ? N extends `${string}.${string}`
        ? never
        : N
      : never]: FileSchema<Files[K]>;
};

/** Construct props of a group of settings: each optional, typed by its kind (TSDoc from the registry). */
export type PropsOf<T> = {
  readonly [K in keyof T]?: T[K] extends { parse: unknown } ? KindTypes[KindOf<T[K]>]['prop'] : PropsOf<T[K]>;
};
/** The same settings with their defaults applied and validated. */
export type ResolvedOf<T> = {
  readonly [K in keyof T]: T[K] extends { parse: unknown }
    ? HasDefault<T[K]> extends true
      ? KindTypes[KindOf<T[K]>]['resolved']
      : KindTypes[KindOf<T[K]>]['resolved'] | undefined
    : ResolvedOf<T[K]>;
};

/** The zod schema fields of the settings that live in config-file group `group` ('' is the root). */
export function fileFields<G extends string>(group: G): FileFields<G> {
  const fields: Record<string, z.ZodType> = {};
  for (const e of USER_SETTINGS) {
    const key = fileKey(e);
    const dot = key.lastIndexOf('.');
    if ((dot < 0 ? '' : key.slice(0, dot)) !== group) continue;
    const schema = codec(e.setting.kind).zod(e.setting);
    const def = fileDefault(e);
    fields[key.slice(dot + 1)] = def === undefined ? schema.optional() : schema.default(def as never);
  }
  return fields as FileFields<G>;
}

/** The config-file groups that hold settings (every one must be a group of the file schema). */
export function fileGroups(): string[] {
  return [...new Set(USER_SETTINGS.map(fileKey).map((k) => k.split('.').slice(0, -1).join('.')))];
}

/** The construct props of the registry's settings from a parsed config file (nested as the props are). */
export function propsFromFile(config: unknown): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const e of USER_SETTINGS) {
    const v = getPath(config, fileKey(e));
    if (v !== undefined) setPath(props, e.path, codec(e.setting.kind).fromFile(v));
  }
  return props;
}

/** Applies each setting's default and validates it; throws ConfigError naming the props path. */
export function resolveSettings(props: unknown): ResolvedOf<typeof SETTINGS> {
  const out: Record<string, unknown> = {};
  for (const e of USER_SETTINGS) {
    const c = codec(e.setting.kind);
    const def = fileDefault(e);
    const value = getPath(props, e.path) ?? (def === undefined ? undefined : c.fromFile(def));
    const fail = (problem: string): never => {
      throw new ConfigError(`TrainingRunMonitor: ${e.path} ${problem}`, { name: e.path });
    };
    setPath(out, e.path, value === undefined ? undefined : c.resolve(value, fail, e.setting));
  }
  return out as ResolvedOf<typeof SETTINGS>;
}

/**
 * The functions' environment from resolved settings: `remediation.*` settings for the remediation
 * function (`group: 'remediation'`), every other setting for all functions (`group: 'common'`).
 */
export function settingsEnvironment(
  resolved: unknown,
  group: 'common' | 'remediation',
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of USER_SETTINGS) {
    if (e.path.startsWith('remediation.') !== (group === 'remediation')) continue;
    const v = getPath(resolved, e.path);
    if (v !== undefined) env[e.setting.env] = codec(e.setting.kind).toEnv(v);
  }
  return env;
}

/** The config-file key of the setting an environment variable comes from (to name it in errors). */
export function settingOfEnv(name: string): string | undefined {
  const e = USER_SETTINGS.find((s) => s.setting.env === name);
  return e && fileKey(e);
}
