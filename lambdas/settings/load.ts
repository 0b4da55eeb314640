import type { Env, Setting } from './define.js';
import { SETTINGS, WIRING } from './registry.js';

/** A tree of settings: a setting, or a group of them by name. */
export type SettingTree = { readonly [name: string]: Setting | SettingTree };

/** One setting with its construct-props path (`thresholds.staleAfter`). */
export interface SettingEntry {
  readonly path: string;
  readonly setting: Setting;
}

function isSetting(v: Setting | SettingTree): v is Setting {
  return typeof (v as Setting).parse === 'function';
}

/** Every setting of a tree, depth first, in definition order. */
export function entries(tree: SettingTree, prefix = ''): SettingEntry[] {
  return Object.entries(tree).flatMap(([name, v]) =>
    isSetting(v) ? [{ path: `${prefix}${name}`, setting: v }] : entries(v, `${prefix}${name}.`),
  );
}

/** The user's settings, then the wiring: every variable the runtime reads. */
export const ALL_SETTINGS: readonly SettingEntry[] = [
  ...entries(SETTINGS as unknown as SettingTree),
  ...entries(WIRING as unknown as SettingTree),
];

/** Sets `value` at a dotted path of `target`, creating the groups on the way. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const names = path.split('.');
  const last = names.pop()!;
  let at = target;
  for (const n of names) {
    at[n] ??= {};
    at = at[n] as Record<string, unknown>;
  }
  at[last] = value;
}

/** Reads the value at a dotted path (undefined where a group is missing). */
export function getPath(source: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((at, n) => (at as Record<string, unknown> | undefined)?.[n], source);
}

// Types: the runtime values, placed at each setting's `runtime` path (or its props path).
type ValueOf<D> = D extends { parse: (env: Env) => infer V } ? V : never;
type RuntimePath<D, P extends string> = D extends { runtime: infer R extends string } ? R : P;
type Flat<T, Pre extends string = ''> = {
  [K in keyof T & string]: T[K] extends { parse: unknown }
    ? { [_ in RuntimePath<T[K], `${Pre}${K}`>]: ValueOf<T[K]> }
    : Flat<T[K], `${Pre}${K}.`>;
}[keyof T & string];
type Merge<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type Top<F> = { readonly [K in keyof F as K extends `${string}.${string}` ? never : K]: F[K] };
type GroupOf<K> = K extends `${infer G}.${string}` ? G : never;
// Groups nest as deep as the registry does (`remediation.eks.clusters`).
type Nest<F> = Top<F> & {
  readonly [G in GroupOf<keyof F>]: Nest<{
    [J in keyof F as J extends `${G}.${infer N}` ? N : never]: F[J];
  }>;
};

/** The parsed values of SETTINGS and WIRING, as the runtime `Config` holds them. */
export type SettingValues = Nest<Merge<Flat<typeof SETTINGS> | Flat<typeof WIRING>>>;

/** Parses every setting from `env`; throws the first ConfigError (it names the variable). */
export function loadSettings(env: Env): SettingValues {
  const out: Record<string, unknown> = {};
  for (const { path, setting } of ALL_SETTINGS) setPath(out, setting.runtime ?? path, setting.parse(env));
  return out as SettingValues;
}
