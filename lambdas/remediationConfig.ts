import { BUILTIN_PROFILES, loadProfile, type Profile } from './core/classify/index.js';
import { ConfigError } from './core/errors.js';
import { type JobCommand, loadPolicy, type RestartPolicy } from './core/remediation/index.js';
import { validParam } from './core/ssmParams.js';

export type { JobCommand };

/** Remediation settings, parsed once with the rest of the configuration. */
export interface RemediationConfig {
  readonly diagnoseDocument?: string;
  readonly restartDocument?: string;
  readonly policy: RestartPolicy;
  /** A built-in profile name, or a profile loaded from inline JSON/YAML. */
  readonly profile: Profile | string;
  /** job_name → command; `*` is the default for jobs not listed. */
  readonly commands: Readonly<Record<string, JobCommand>>;
  readonly ssmOutputPrefix: string;
  readonly managedTag: { readonly key: string; readonly value: string };
}

type Env = Readonly<Record<string, string | undefined>>;

function commands(raw: string | undefined): Record<string, JobCommand> {
  if (!raw?.trim()) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new ConfigError(`TRAINWATCH_RESTART_COMMANDS is not JSON: ${(e as Error).message}`, {
      name: 'TRAINWATCH_RESTART_COMMANDS',
    });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new ConfigError('TRAINWATCH_RESTART_COMMANDS must be a JSON object of job_name → command', {
      name: 'TRAINWATCH_RESTART_COMMANDS',
    });
  const out: Record<string, JobCommand> = {};
  for (const [job, v] of Object.entries(json)) {
    const spec = typeof v === 'string' ? { command: v } : (v as Record<string, unknown>);
    const where = `TRAINWATCH_RESTART_COMMANDS[${JSON.stringify(job)}]`;
    const command = typeof spec?.command === 'string' ? spec.command : '';
    if (!validParam('command', command))
      throw new ConfigError(
        `${where}: ${JSON.stringify(command)} must be a program and its arguments (letters, digits, space and _ . / = : , @ % + -; no shell syntax — wrap anything else in a script on the instance)`,
        { name: 'TRAINWATCH_RESTART_COMMANDS' },
      );
    const processPattern = typeof spec.process_pattern === 'string' ? spec.process_pattern : undefined;
    if (processPattern !== undefined && !validParam('processPattern', processPattern))
      throw new ConfigError(`${where}.process_pattern is not a safe pgrep pattern`, {
        name: 'TRAINWATCH_RESTART_COMMANDS',
      });
    const user = typeof spec.user === 'string' ? spec.user : undefined;
    if (user !== undefined && !validParam('user', user))
      throw new ConfigError(`${where}.user is not a valid user name`, {
        name: 'TRAINWATCH_RESTART_COMMANDS',
      });
    const target = spec.target;
    if (target !== undefined && target !== 'all' && target !== 'head')
      throw new ConfigError(`${where}.target must be "all" (every node) or "head" (node 0 only)`, {
        name: 'TRAINWATCH_RESTART_COMMANDS',
      });
    const resume = spec.resume;
    if (resume !== undefined && resume !== 'require' && resume !== 'allow_scratch')
      throw new ConfigError(`${where}.resume must be "require" or "allow_scratch"`, {
        name: 'TRAINWATCH_RESTART_COMMANDS',
      });
    out[job] = {
      command,
      ...(processPattern ? { processPattern } : {}),
      ...(user ? { user } : {}),
      ...(target ? { target } : {}),
      ...(resume ? { resume } : {}),
    };
  }
  return out;
}

function profile(raw: string | undefined): Profile | string {
  const text = raw?.trim() || 'production';
  if (BUILTIN_PROFILES.has(text)) return text;
  if (!/[:{\n]/.test(text))
    throw new ConfigError(
      `TRAINWATCH_PROFILE=${JSON.stringify(text)} is not a built-in profile (${[...BUILTIN_PROFILES.keys()].join(', ')}) nor JSON/YAML`,
      { name: 'TRAINWATCH_PROFILE' },
    );
  return loadProfile(text);
}

/** Parses the remediation settings; throws ConfigError naming the setting. */
export function loadRemediationConfig(env: Env): RemediationConfig {
  const tag = env.TRAINWATCH_MANAGED_TAG?.trim() || 'trainwatch:managed=true';
  const eq = tag.indexOf('=');
  if (eq <= 0)
    throw new ConfigError(`TRAINWATCH_MANAGED_TAG=${JSON.stringify(tag)} must be key=value`, {
      name: 'TRAINWATCH_MANAGED_TAG',
    });
  let policy: RestartPolicy;
  try {
    policy = loadPolicy(env.TRAINWATCH_RESTART_POLICY);
  } catch (e) {
    throw new ConfigError(
      `TRAINWATCH_RESTART_POLICY: ${(e as Error).message}`,
      { name: 'TRAINWATCH_RESTART_POLICY' },
      { cause: e },
    );
  }
  const prefix = (env.TRAINWATCH_SSM_OUTPUT_PREFIX?.trim() || 'trainwatch-ssm-output').replace(
    /^\/+|\/+$/g,
    '',
  );
  if (!/^[A-Za-z0-9._\-/]+$/.test(prefix))
    throw new ConfigError('TRAINWATCH_SSM_OUTPUT_PREFIX may hold only letters, digits, . _ - /', {
      name: 'TRAINWATCH_SSM_OUTPUT_PREFIX',
    });
  return {
    diagnoseDocument: env.TRAINWATCH_DIAGNOSE_DOCUMENT?.trim() || undefined,
    restartDocument: env.TRAINWATCH_RESTART_DOCUMENT?.trim() || undefined,
    policy,
    profile: profile(env.TRAINWATCH_PROFILE),
    commands: commands(env.TRAINWATCH_RESTART_COMMANDS),
    ssmOutputPrefix: prefix,
    managedTag: { key: tag.slice(0, eq), value: tag.slice(eq + 1) },
  };
}
