import { ConfigError } from '../core/base/errors.js';
import { type Base, type Env, read } from './define.js';

function fail(name: string, message: string): never {
  throw new ConfigError(message, { name });
}

/**
 * Optional text. `pattern` checks a set value; `secret` keeps the value out of the error message.
 * `kind` is what the stack does with it: `ssmParameter` is a setting, `wiring` is set from a resource.
 */
export function text<
  const O extends Base & {
    default?: string;
    stackDefault?: string;
    pattern?: RegExp;
    problem?: string;
    secret?: boolean;
    /** Read when `env` is unset (AWS_DEFAULT_REGION after AWS_REGION). */
    alsoEnv?: string;
    kind?: 'ssmParameter' | 'wiring';
  },
>(o: O) {
  return {
    ...o,
    kind: (o.kind ?? 'wiring') as O['kind'] extends string ? O['kind'] : 'wiring',
    envDefault: o.default,
    parse: (env: Env): O['default'] extends string ? string : string | undefined => {
      const v = read(env, o.env) ?? (o.alsoEnv ? read(env, o.alsoEnv) : undefined) ?? o.default;
      if (v !== undefined && o.pattern && !o.pattern.test(v))
        fail(
          o.env,
          o.secret
            ? `${o.env} ${o.problem ?? 'is invalid'}`
            : `${o.env}=${JSON.stringify(v)} ${o.problem ?? 'is invalid'}`,
        );
      return v as string;
    },
  };
}

/** Text that must be set (the bucket and table names). */
export function required<const O extends Base>(o: O) {
  return {
    ...o,
    kind: 'wiring' as const,
    unset: 'required',
    parse: (env: Env): string => read(env, o.env) ?? fail(o.env, `${o.env} is required but not set`),
  };
}
