import { NEEDS_OTHER_NODE, NOT_RESTARTABLE } from '../../classify/errorTypes.js';
import { PolicySchema, type RestartPolicy, type RestartPolicyInput } from './schema.js';

/** Transient faults of the network and the scheduler: a restart from the checkpoint usually works. */
const TRANSIENT = [
  'nccl',
  'nccl_timeout',
  'distributed_timeout',
  'watchdog_timeout',
  'communication',
  'cancelled_preempted',
];

const DEFINITIONS: readonly RestartPolicyInput[] = [
  {
    name: 'none',
    description: 'monitor and alert only; never restart (the default)',
    max_restarts: 0,
    modes: {},
  },
  {
    name: 'transient',
    description: 'restart network, collective and preemption failures and confirmed hangs; alert on the rest',
    max_restarts: 3,
    backoff: { initial_seconds: 60, factor: 2, max_seconds: 900 },
    modes: {
      crash: {
        restart_on: TRANSIENT,
        exclude: [...NOT_RESTARTABLE, ...NEEDS_OTHER_NODE],
        default_action: 'alert',
      },
      stall: {
        restart_on: ['hang', 'deadlock', 'watchdog_timeout', 'nccl_timeout', 'unknown'],
        exclude: [...NOT_RESTARTABLE, ...NEEDS_OTHER_NODE],
        default_action: 'alert',
      },
      timeout: {
        restart_on: ['cancelled_preempted', 'communication'],
        exclude: [...NOT_RESTARTABLE, ...NEEDS_OTHER_NODE],
        default_action: 'alert',
      },
    },
  },
  {
    name: 'aggressive',
    description:
      'restart anything a restart could fix (every restartable type, unknown failures, stalls, timeouts)',
    max_restarts: 5,
    backoff: { initial_seconds: 30, factor: 2, max_seconds: 600 },
    modes: {
      crash: { restart_on: ['*', 'unknown'], exclude: [...NOT_RESTARTABLE], default_action: 'restart' },
      stall: { restart_on: ['*', 'unknown'], exclude: [...NOT_RESTARTABLE], default_action: 'restart' },
      timeout: { restart_on: ['*', 'unknown'], exclude: [...NOT_RESTARTABLE], default_action: 'restart' },
    },
  },
  {
    name: 'conservative',
    description: 'one restart, only for preemption and network failures, after a long pause',
    max_restarts: 1,
    backoff: { initial_seconds: 300, factor: 2, max_seconds: 1800 },
    modes: {
      crash: {
        restart_on: ['cancelled_preempted', 'communication'],
        exclude: [...NOT_RESTARTABLE, ...NEEDS_OTHER_NODE],
        default_action: 'alert',
      },
      stall: { restart_on: [], default_action: 'alert' },
      timeout: { restart_on: ['cancelled_preempted'], default_action: 'alert' },
    },
  },
];

/** The built-in restart policies, validated at load. */
export const POLICY_PRESETS: ReadonlyMap<string, RestartPolicy> = new Map(
  DEFINITIONS.map((d) => {
    const p = PolicySchema.parse(d);
    return [p.name, p];
  }),
);

/** The policy a stack gets unless the operator picks another. */
export const DEFAULT_POLICY = 'none';
