import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../base/errors.js';
import { BUILTIN_PROFILES } from './profiles/index.js';
import { type Profile, ProfileSchema, type Signal } from './schema.js';

/** Resolves `extends` and `disable` against the built-in profiles (or `known`). */
function resolve(
  input: ReturnType<typeof ProfileSchema.parse>,
  known: ReadonlyMap<string, Profile>,
): Profile {
  const byName = new Map<string, Signal>();
  for (const base of input.extends) {
    const p = known.get(base);
    if (!p)
      throw new ConfigError(
        `profile ${input.name}: extends unknown profile ${JSON.stringify(base)} (known: ${[...known.keys()].join(', ')})`,
      );
    for (const s of p.signals) byName.set(s.name, s);
  }
  for (const name of input.disable) {
    if (!byName.delete(name))
      throw new ConfigError(
        `profile ${input.name}: disable names ${JSON.stringify(name)}, which no extended profile defines`,
      );
  }
  // Map keeps first-insertion order: an override stays where the original was, new signals go last.
  for (const s of input.signals) byName.set(s.name, s);
  return { name: input.name, description: input.description, signals: [...byName.values()] };
}

/** Parses a profile from JSON or YAML text; throws ConfigError naming the first problem and its path. */
export function loadProfile(text: string, known: ReadonlyMap<string, Profile> = BUILTIN_PROFILES): Profile {
  let raw: unknown;
  try {
    raw = parseYaml(text); // YAML 1.2 is a superset of JSON
  } catch (e) {
    throw new ConfigError(
      `profile is neither JSON nor YAML: ${(e as Error).message.split('\n')[0]}`,
      {},
      { cause: e },
    );
  }
  const result = ProfileSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = issue.path.length ? issue.path.join('.') : '(root)';
    throw new ConfigError(`profile: ${where}: ${issue.message}`, { path: issue.path });
  }
  const names = result.data.signals.map((s) => s.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new ConfigError(`profile ${result.data.name}: signal ${dup} is defined twice`);
  return resolve(result.data, known);
}
