import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../../base/errors.js';
import { DEFAULT_POLICY, POLICY_PRESETS } from './presets.js';
import { PolicySchema, type RestartPolicy } from './schema.js';

/** A preset by name, or a policy from JSON/YAML text (`{"extends": "transient", ...}` starts from a preset). */
export function loadPolicy(nameOrText: string | undefined): RestartPolicy {
  const text = nameOrText?.trim() || DEFAULT_POLICY;
  const preset = POLICY_PRESETS.get(text);
  if (preset) return preset;
  if (!/[:{\n]/.test(text))
    throw new ConfigError(
      `restart policy ${JSON.stringify(text)} is not a preset (${[...POLICY_PRESETS.keys()].join(', ')}) nor JSON/YAML`,
    );
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    throw new ConfigError(
      `restart policy is neither JSON nor YAML: ${(e as Error).message.split('\n')[0]}`,
      {},
      { cause: e },
    );
  }
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && 'extends' in raw) {
    const { extends: base, ...rest } = raw as Record<string, unknown>;
    const from = typeof base === 'string' ? POLICY_PRESETS.get(base) : undefined;
    if (!from)
      throw new ConfigError(`restart policy: extends ${JSON.stringify(base)}, which is not a preset`);
    const modes = { ...from.modes, ...((rest.modes as object | undefined) ?? {}) };
    raw = {
      ...from,
      name: `${from.name}-custom`,
      ...rest,
      modes,
      backoff: { ...from.backoff, ...((rest.backoff as object | undefined) ?? {}) },
    };
  }
  const result = PolicySchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ConfigError(`restart policy: ${issue.path.join('.') || '(root)'}: ${issue.message}`, {
      path: issue.path,
    });
  }
  return result.data;
}
