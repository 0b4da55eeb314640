import { type Profile, type ProfileInput, ProfileSchema } from '../schema.js';
import { BASIC_SIGNALS } from './basic.js';
import { NCCL_SIGNALS } from './nccl.js';
import { RAISED_SIGNALS } from './raised.js';
import { STALL_SIGNALS } from './stall.js';

const DEFINITIONS: readonly ProfileInput[] = [
  {
    name: 'basic',
    description: 'memory, disk, numerics, preemption, GPU hardware, Python errors',
    signals: [...BASIC_SIGNALS],
  },
  {
    name: 'nccl',
    description: 'basic plus NCCL, process-group timeouts and the network',
    signals: [...BASIC_SIGNALS, ...NCCL_SIGNALS, ...RAISED_SIGNALS],
  },
  {
    name: 'stall',
    description: 'basic plus hangs and deadlocks',
    signals: [...BASIC_SIGNALS, ...STALL_SIGNALS],
  },
  {
    name: 'production',
    description: 'every built-in signal (the default)',
    signals: [...BASIC_SIGNALS, ...NCCL_SIGNALS, ...STALL_SIGNALS, ...RAISED_SIGNALS],
  },
];

/** The built-in profiles, validated once at load (a bad built-in fails every test, not a sweep). */
export const BUILTIN_PROFILES: ReadonlyMap<string, Profile> = new Map(
  DEFINITIONS.map((d) => {
    const p = ProfileSchema.parse(d);
    return [p.name, { name: p.name, description: p.description, signals: p.signals }];
  }),
);

export { DEFAULT_PROFILE } from '../names.js';
