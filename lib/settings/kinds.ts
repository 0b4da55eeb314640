import { Duration } from 'aws-cdk-lib';
import { z } from 'zod';
import { parseDuration } from '../../lambdas/core/base/duration.js';
import { EKS_CODECS, type EksCluster, type EksClusterSetting } from './eksKinds.js';
import { REMEDIATION_CODECS } from './remediationKinds.js';
import { SLACK_CODECS } from './slackKinds.js';

/** The instance tag that allows remediation: SSM commands go only to instances that carry it. */
export interface ManagedTag {
  readonly key: string;
  readonly value: string;
}

/** How to restart one job: the command line, or the command with how to find and run the process. */
export type RestartCommand =
  | string
  | {
      readonly command: string;
      readonly process_pattern?: string;
      readonly user?: string;
      /** Multi-node jobs: restart on every node (`all`, default) or once on node 0 (`head`, for schedulers). */
      readonly target?: 'all' | 'head';
      /** No checkpoint found: refuse (`require`, default) or start from scratch (`allow_scratch`). */
      readonly resume?: 'require' | 'allow_scratch';
    };

type PolicyOrProfile = string | Readonly<Record<string, unknown>>;

/** What each kind of setting is in the config file, in the construct props and once resolved. */
export interface KindTypes {
  duration: { file: string; prop: Duration; resolved: Duration };
  phases: {
    file: Record<string, string>;
    prop: Readonly<Record<string, Duration>>;
    resolved: Readonly<Record<string, Duration>>;
  };
  int: { file: number; prop: number; resolved: number };
  days: { file: number; prop: Duration; resolved: Duration };
  keyPrefix: { file: string; prop: string; resolved: string };
  /** '' turns the feature off: resolved undefined. */
  ssmParameter: { file: string; prop: string; resolved: string | undefined };
  /** Resolved: the name, or the custom profile as JSON. */
  profile: { file: PolicyOrProfile; prop: PolicyOrProfile; resolved: string };
  restartPolicy: { file: PolicyOrProfile; prop: PolicyOrProfile; resolved: PolicyOrProfile };
  restartCommands: {
    file: Record<string, RestartCommand>;
    prop: Readonly<Record<string, RestartCommand>>;
    resolved: Readonly<Record<string, RestartCommand>>;
  };
  tag: { file: string; prop: ManagedTag; resolved: ManagedTag };
  /** The EKS clusters remediation may act in; resolved: checked, the default group filled in. */
  eksClusters: { file: EksCluster[]; prop: readonly EksCluster[]; resolved: readonly EksClusterSetting[] };
  /** Text the runtime converts (a percentage, a ratio, a list, a switch); validated by the runtime's parser. */
  word: { file: string | number | boolean; prop: string; resolved: string };
  /** A Slack channel id; unset: no channel. */
  slackChannel: { file: string; prop: string; resolved: string | undefined };
  /** Slack user and user-group ids (`*`: anyone); empty: nobody. */
  slackUsers: { file: string[]; prop: readonly string[]; resolved: readonly string[] };
}
export type Kind = keyof KindTypes;

/** How the stack handles one kind: its file schema, file → props, validation, and props → environment. */
export interface Codec<K extends Kind> {
  readonly zod: (s: { min?: number; max?: number }) => z.ZodType<KindTypes[K]['file']>;
  readonly fromFile: (v: KindTypes[K]['file']) => KindTypes[K]['prop'];
  /** Validates and normalises a prop; `fail(problem)` names the setting. */
  readonly resolve: (
    v: KindTypes[K]['prop'],
    fail: (problem: string) => never,
    s: { min?: number; max?: number },
  ) => KindTypes[K]['resolved'];
  readonly toEnv: (v: NonNullable<KindTypes[K]['resolved']>) => string;
}

/** `10m`, `90s`, `2h`: the duration syntax the runtime parses. */
export function envDuration(d: Duration): string {
  const s = d.toSeconds({ integral: false });
  if (s % 3600 === 0) return `${s / 3600}h`;
  if (s % 60 === 0) return `${s / 60}m`;
  return `${Math.round(s)}s`;
}

const ms = (text: string) => Duration.millis(parseDuration(text)!);
const durationText = z
  .string()
  .refine((s) => parseDuration(s) !== undefined, 'is not a duration (use e.g. 90s, 10m, 2h, 7d)');
const PHASE = /^[A-Za-z0-9_-]+$/;
const KEY_PREFIX = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

function positive(d: Duration, fail: (p: string) => never): Duration {
  if (d.toMilliseconds() <= 0) fail('must be longer than zero');
  return d;
}

function intIn(n: number, fail: (p: string) => never, s: { min?: number; max?: number }): number {
  const [min, max] = [s.min ?? 0, s.max ?? Number.MAX_SAFE_INTEGER];
  if (!Number.isInteger(n) || n < min || n > max) fail(`must be an integer from ${min} to ${max} (got ${n})`);
  return n;
}

/** Every kind's codec; a kind the registry uses but this table lacks fails to compile. */
export const CODECS: { readonly [K in Kind]: Codec<K> } = {
  duration: { zod: () => durationText, fromFile: ms, resolve: positive, toEnv: envDuration },
  phases: {
    zod: () => z.record(z.string().regex(PHASE, 'phase names are letters, digits, _ and -'), durationText),
    fromFile: (v) => Object.fromEntries(Object.entries(v).map(([k, d]) => [k, ms(d)])),
    resolve: (v, fail) => {
      for (const phase of Object.keys(v))
        if (!PHASE.test(phase)) fail(`phase ${JSON.stringify(phase)} may hold only letters, digits, _ and -`);
      return v;
    },
    toEnv: (v) =>
      Object.entries(v)
        .map(([phase, d]) => `${phase}=${envDuration(d)}`)
        .join(','),
  },
  int: {
    zod: (s) => z.number().int().min(s.min!).max(s.max!),
    fromFile: (v) => v,
    resolve: intIn,
    toEnv: String,
  },
  days: {
    zod: (s) => z.number().int().min(s.min!).max(s.max!),
    fromFile: (v) => Duration.days(v),
    resolve: (v, fail, s) => Duration.days(intIn(Math.round(v.toDays({ integral: false })), fail, s)),
    toEnv: (v) => String(v.toDays()),
  },
  keyPrefix: {
    zod: () => z.string(),
    fromFile: (v) => v,
    resolve: (v, fail) => {
      const p = v.trim().replace(/^\/+|\/+$/g, '');
      if (!KEY_PREFIX.test(p))
        fail(`${JSON.stringify(v)} must be a non-empty S3 key prefix of letters, digits, . _ - and /`);
      return p;
    },
    toEnv: (v) => v,
  },
  ssmParameter: {
    // '' turns the feature off (no Slack); anything else must be a parameter name.
    zod: () => z.string().regex(/^(|[A-Za-z0-9_.\-/]+)$/, 'is not an SSM parameter name'),
    fromFile: (v) => v,
    resolve: (v, fail) => {
      if (v && !/^[A-Za-z0-9_.\-/]+$/.test(v)) fail(`${JSON.stringify(v)} is not an SSM parameter name`);
      return v || undefined;
    },
    toEnv: (v) => v,
  },
  word: {
    zod: () => z.union([z.string(), z.number(), z.boolean()]),
    fromFile: String,
    // The runtime's own parser decides: what `cdk synth` accepts, the function accepts.
    resolve: (v, fail, s) => {
      const setting = s as unknown as { env: string; parse: (env: Record<string, string>) => unknown };
      try {
        setting.parse({ [setting.env]: v });
      } catch (e) {
        fail((e as Error).message);
      }
      return v;
    },
    toEnv: (v) => v,
  },
  ...REMEDIATION_CODECS,
  ...EKS_CODECS,
  ...SLACK_CODECS,
};
