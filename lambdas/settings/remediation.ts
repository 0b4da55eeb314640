import { ConfigError } from '../core/base/errors.js';
import { PROFILE_NAMES } from '../core/classify/names.js';
import type { JobCommand } from '../core/model/slices/remediation.js';
import { validParam } from '../core/protocol/ssmParams.js';
import { loadPolicy, type RestartPolicy } from '../core/remediation/policy/index.js';
import { type Base, type Env, read } from './define.js';

/** The settings whose values are policies, profiles and commands: parsed by the core's own loaders. */

function fail(name: string, message: string, cause?: unknown): never {
  throw new ConfigError(message, { name }, cause ? { cause } : undefined);
}

/**
 * A built-in classification profile name, or a custom profile as JSON/YAML text: the classifier loads it
 * with its rules, on first use (lambdas/adapters/loaders/classifier.ts); `cdk synth` has checked it
 * (lib/runtimeCheck.ts).
 */
export function profile<const O extends Base & { default: string }>(o: O) {
  return {
    ...o,
    kind: 'profile' as const,
    envDefault: o.default,
    parse: (env: Env): string => {
      const text = read(env, o.env) ?? o.default;
      if (!PROFILE_NAMES.includes(text) && !/[:{\n]/.test(text))
        fail(
          o.env,
          `${o.env}=${JSON.stringify(text)} is not a built-in profile (${PROFILE_NAMES.join(', ')}) nor JSON/YAML`,
        );
      return text;
    },
  };
}

/** A restart-policy preset, or a policy as JSON/YAML. */
export function restartPolicy<const O extends Base & { default: string }>(o: O) {
  return {
    ...o,
    kind: 'restartPolicy' as const,
    envDefault: o.default,
    parse: (env: Env): RestartPolicy => {
      try {
        return loadPolicy(read(env, o.env) ?? o.default);
      } catch (e) {
        return fail(o.env, `${o.env}: ${(e as Error).message}`, e);
      }
    },
  };
}

function jobCommand(name: string, job: string, v: unknown): JobCommand {
  const spec = typeof v === 'string' ? { command: v } : (v as Record<string, unknown>);
  const where = `${name}[${JSON.stringify(job)}]`;
  const command = typeof spec?.command === 'string' ? spec.command : '';
  if (!validParam('command', command))
    fail(
      name,
      `${where}: ${JSON.stringify(command)} must be a program and its arguments (letters, digits, space and _ . / = : , @ % + -; no shell syntax — wrap anything else in a script on the instance)`,
    );
  const processPattern = typeof spec.process_pattern === 'string' ? spec.process_pattern : undefined;
  if (processPattern !== undefined && !validParam('processPattern', processPattern))
    fail(name, `${where}.process_pattern is not a safe pgrep pattern`);
  const user = typeof spec.user === 'string' ? spec.user : undefined;
  if (user !== undefined && !validParam('user', user)) fail(name, `${where}.user is not a valid user name`);
  const target = spec.target;
  if (target !== undefined && target !== 'all' && target !== 'head')
    fail(name, `${where}.target must be "all" (every node) or "head" (node 0 only)`);
  const resume = spec.resume;
  if (resume !== undefined && resume !== 'require' && resume !== 'allow_scratch')
    fail(name, `${where}.resume must be "require" or "allow_scratch"`);
  return {
    command,
    ...(processPattern ? { processPattern } : {}),
    ...(user ? { user } : {}),
    ...(target ? { target } : {}),
    ...(resume ? { resume } : {}),
  };
}

/** JSON: job_name (or `*`) → command, or `{ command, process_pattern, user, target, resume }`. */
export function restartCommands<const O extends Base>(o: O) {
  return {
    ...o,
    kind: 'restartCommands' as const,
    default: {},
    envDefault: '{}',
    parse: (env: Env): Readonly<Record<string, JobCommand>> => {
      const raw = read(env, o.env);
      if (!raw) return {};
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch (e) {
        return fail(o.env, `${o.env} is not JSON: ${(e as Error).message}`);
      }
      if (typeof json !== 'object' || json === null || Array.isArray(json))
        fail(o.env, `${o.env} must be a JSON object of job_name → command`);
      return Object.fromEntries(Object.entries(json).map(([job, v]) => [job, jobCommand(o.env, job, v)]));
    },
  };
}

/** `key=value`: an instance tag. */
export function tag<const O extends Base & { default: string }>(o: O) {
  return {
    ...o,
    kind: 'tag' as const,
    envDefault: o.default,
    parse: (env: Env): { readonly key: string; readonly value: string } => {
      const text = read(env, o.env) ?? o.default;
      const eq = text.indexOf('=');
      if (eq <= 0) fail(o.env, `${o.env}=${JSON.stringify(text)} must be key=value`);
      return { key: text.slice(0, eq), value: text.slice(eq + 1) };
    },
  };
}
