import { z } from 'zod';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import { PROFILES, RESTART_PRESETS } from '../defaults.js';
import type { Codec } from './kinds.js';

/** A preset name, or a custom object (profiles and restart policies). */
function oneOf(names: readonly string[], what: string) {
  return z.union([
    z.string().refine((p) => names.includes(p), `must be one of ${names.join(', ')}, or a ${what} object`),
    z.record(z.string(), z.unknown()),
  ]);
}

/** The codecs of the profile and remediation kinds. */
export const REMEDIATION_CODECS: {
  readonly [K in 'profile' | 'restartPolicy' | 'restartCommands' | 'tag']: Codec<K>;
} = {
  profile: {
    zod: () => oneOf(PROFILES, 'custom profile'),
    fromFile: (v) => v,
    resolve: (v, fail) => {
      if (typeof v !== 'string') return JSON.stringify(v);
      if (!PROFILES.includes(v)) fail(`${JSON.stringify(v)} is unknown; use one of ${PROFILES.join(', ')}`);
      return v;
    },
    toEnv: (v) => v,
  },
  restartPolicy: {
    zod: () => oneOf(RESTART_PRESETS, 'policy'),
    fromFile: (v) => v,
    resolve: (v, fail) => {
      if (typeof v === 'string' && !RESTART_PRESETS.includes(v))
        fail(`${JSON.stringify(v)} is unknown; use one of ${RESTART_PRESETS.join(', ')} or a policy object`);
      return v;
    },
    toEnv: (v) => (typeof v === 'string' ? v : JSON.stringify(v)),
  },
  restartCommands: {
    zod: () =>
      z.record(
        z.string(),
        z.union([
          z.string().min(1, 'is empty'),
          z.strictObject({
            command: z.string().min(1, 'is empty'),
            process_pattern: z.string().optional(),
            target: z.enum(['all', 'head']).optional(),
            resume: z.enum(['require', 'allow_scratch']).optional(),
            user: z.string().optional(),
          }),
        ]),
      ),
    fromFile: (v) => v,
    resolve: (v) => {
      for (const [job, command] of Object.entries(v))
        if (!(typeof command === 'string' ? command : command.command).trim())
          throw new ConfigError(
            `TrainingRunMonitor: remediation.restartCommands[${JSON.stringify(job)}] is empty`,
            { name: 'remediation.restartCommands' },
          );
      return v;
    },
    toEnv: (v) => JSON.stringify(v),
  },
  tag: {
    zod: () =>
      z
        .string()
        .regex(
          /^(?!aws:)[^=]+=[^=]*$/,
          'must be key=value (e.g. trainwatch:managed=true), key not starting with aws:',
        ),
    fromFile: (v) => {
      const [key, value] = v.split('=') as [string, string];
      return { key: key.trim(), value: value.trim() };
    },
    resolve: (v, fail) => {
      if (!v.key.trim() || v.key.startsWith('aws:'))
        fail('must be a non-empty tag key not starting with aws:');
      return v;
    },
    toEnv: (v) => `${v.key}=${v.value}`,
  },
};
