import { describe, expect, it } from 'vitest';
import {
  actionFor,
  ERROR_ACTIONS,
  STATE_ACTIONS,
  severityFor,
  UNKNOWN_ERROR_ACTION,
} from '../../../lambdas/core/alerting/actions.js';
import { HEALTH_FINDING_KINDS } from '../../../lambdas/core/model/slices/health.js';
import { ALL_STATES, RunState } from '../../../lambdas/core/model/states.js';

const ERROR_TYPES = [
  'oom',
  'cpu_oom_killed',
  'disk_full',
  'numerical_instability',
  'exception',
  'torch',
  'nccl',
  'nccl_timeout',
  'distributed_timeout',
  'watchdog_timeout',
  'communication',
  'hang',
  'deadlock',
  'gpu_xid',
  'ecc_error',
  'cancelled_preempted',
  'efa_fallback',
];

describe('actionFor', () => {
  it('has a distinct action for every error type of the design', () => {
    const actions = ERROR_TYPES.map((t) => actionFor(RunState.FAILED, t));
    expect(new Set(actions).size).toBe(ERROR_TYPES.length);
    expect(Object.keys(ERROR_ACTIONS).sort()).toEqual([...ERROR_TYPES].sort());
  });

  it.each([
    ['oom', /^Reduce batch size or sequence length \(or enable activation checkpointing\), then resume/],
    ['disk_full', /^Free disk space on the checkpoint volume .*and restart$/],
    ['numerical_instability', /learning rate.*bf16/],
    ['gpu_xid', /replace the node/],
    ['ecc_error', /uncorrectable ECC.*another one/],
    ['efa_fallback', /TCP sockets instead of EFA.*a restart changes nothing until the network is fixed/],
    ['cancelled_preempted', /resume .* on a new instance/],
    ['hang', /py-spy dump/],
  ])('tells a person what to do about %s', (type, pattern) => {
    expect(actionFor(RunState.FAILED, type)).toMatch(pattern);
  });

  it('gives every node and health cause of a WARNING its own action, not the generic one', () => {
    const causes = ['node_silent', 'nodes_missing', ...HEALTH_FINDING_KINDS] as const;
    const actions = causes.map((c) => actionFor(RunState.WARNING, null, c));
    expect(new Set(actions).size).toBe(causes.length);
    expect(actions).not.toContain(STATE_ACTIONS.WARNING);
    expect(actionFor(RunState.WARNING, null, 'data_bound')).toMatch(/DataLoader workers.*py-spy top/);
    expect(actionFor(RunState.WARNING, null, 'heartbeat_stale')).toBe(STATE_ACTIONS.WARNING);
  });

  it('falls back to reading the error when a failure has no known type', () => {
    expect(actionFor(RunState.FAILED)).toBe(UNKNOWN_ERROR_ACTION);
    expect(actionFor(RunState.FAILED, null)).toBe(UNKNOWN_ERROR_ACTION);
    expect(actionFor(RunState.FAILED, 'made_up_type')).toBe(UNKNOWN_ERROR_ACTION);
    expect(actionFor(RunState.FAILED, 'constructor')).toBe(UNKNOWN_ERROR_ACTION);
  });

  it('prefers the error type for unhealthy states that a diagnosis can explain', () => {
    expect(actionFor(RunState.TIMED_OUT, 'gpu_xid')).toBe(ERROR_ACTIONS.gpu_xid);
    expect(actionFor(RunState.STALLED, 'deadlock')).toBe(ERROR_ACTIONS.deadlock);
    expect(actionFor(RunState.TIMED_OUT)).toBe(STATE_ACTIONS.TIMED_OUT);
    expect(actionFor(RunState.STALLED)).toMatch(/step does not advance/);
  });

  it('says there is nothing to do when a run recovered or is restarting, whatever the old error', () => {
    expect(actionFor(RunState.RUNNING, 'oom')).toMatch(/^Nothing to do: the run has recovered/);
    expect(actionFor(RunState.RESTARTING, 'nccl')).toMatch(/^Nothing to do: trainwatch restarted/);
    expect(actionFor(RunState.PENDING)).toMatch(/waiting for the first heartbeat/);
  });

  it('reminds people to stop paying for a finished run', () => {
    expect(actionFor(RunState.SUCCEEDED)).toMatch(/stop the instance/);
  });

  it('has a non-empty action for every state', () => {
    for (const s of ALL_STATES) expect(actionFor(s).length).toBeGreaterThan(10);
  });
});

describe('severityFor', () => {
  it.each([
    [RunState.FAILED, 'critical'],
    [RunState.TIMED_OUT, 'critical'],
    [RunState.STALLED, 'critical'],
    [RunState.WARNING, 'warning'],
    [RunState.RESTARTING, 'info'],
    [RunState.PENDING, 'info'],
    [RunState.RUNNING, 'success'],
    [RunState.SUCCEEDED, 'success'],
  ])('rates %s as %s', (state, severity) => {
    expect(severityFor(state)).toBe(severity);
  });
});
