import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lambdas/core/base/errors.js';
import { RunState } from '../../../lambdas/core/model/states.js';
import type { DiagnosisSummary } from '../../../lambdas/core/remediation/diagnosis/index.js';
import {
  backoffMs,
  crashLoop,
  type DecideInput,
  decide,
  loadPolicy,
  modeOf,
  POLICY_PRESETS,
  type Probe,
} from '../../../lambdas/core/remediation/policy/index.js';

const gone: DiagnosisSummary = { lines: ['process not running'], processAlive: false, truncated: false };
const ok = (s: Partial<DiagnosisSummary> = {}): Probe => ({ ok: true, summary: { ...gone, ...s } });
const preset = (name: string) => POLICY_PRESETS.get(name)!;

function input(over: Partial<DecideInput> = {}): DecideInput {
  return {
    state: RunState.FAILED,
    errorType: 'nccl',
    attempt: 1,
    restarts: 0,
    bestSteps: { 1: 500 },
    probe: ok(),
    policy: preset('transient'),
    ...over,
  };
}

describe('modeOf', () => {
  it.each([
    [RunState.FAILED, 'crash'],
    [RunState.STALLED, 'stall'],
    [RunState.TIMED_OUT, 'timeout'],
    [RunState.RUNNING, null],
    [RunState.WARNING, null],
  ])('%s → %s', (state, mode) => expect(modeOf(state)).toBe(mode));
});

describe('decide', () => {
  it.each<[string, Partial<DecideInput>, DecideInputExpect]>([
    [
      'none never restarts',
      { policy: preset('none') },
      { action: 'alert', reason: /policy none .*never restarts/ },
    ],
    [
      'transient restarts an NCCL crash',
      {},
      { action: 'restart', reason: /restarting as attempt 2 .*nccl is listed.* restart 1 of 3/ },
    ],
    [
      'transient does not restart an OOM',
      { errorType: 'oom' },
      { action: 'alert', reason: /oom is excluded/ },
    ],
    [
      'aggressive does not restart an OOM either (* excludes non-restartable types)',
      { errorType: 'oom', policy: preset('aggressive') },
      { action: 'alert', reason: /oom is excluded/ },
    ],
    [
      'aggressive restarts an unclassified crash',
      { errorType: null, policy: preset('aggressive') },
      { action: 'restart', reason: /unknown is listed/ },
    ],
    [
      'transient alerts on an unclassified crash',
      { errorType: null },
      { action: 'alert', reason: /unknown is not listed/ },
    ],
    [
      'transient does not restart on a dead GPU type',
      { errorType: 'gpu_xid' },
      { action: 'alert', reason: /gpu_xid is excluded/ },
    ],
    [
      'transient does not restart an uncorrectable ECC error on the same node',
      { errorType: 'ecc_error' },
      { action: 'alert', reason: /ecc_error is excluded/ },
    ],
    [
      'aggressive does not restart a faulty GPU through * (it needs another node)',
      { errorType: 'ecc_error', policy: preset('aggressive') },
      { action: 'alert', reason: /ecc_error needs another node/ },
    ],
    [
      'aggressive does not restart an Xid through * either',
      { errorType: 'gpu_xid', policy: preset('aggressive') },
      { action: 'alert', reason: /gpu_xid needs another node/ },
    ],
    [
      'a policy that names ecc_error (its restart command moves the job) restarts it',
      {
        errorType: 'ecc_error',
        policy: {
          ...preset('aggressive'),
          modes: {
            ...preset('aggressive').modes,
            crash: { restart_on: ['ecc_error'], exclude: [], default_action: 'alert' },
          },
        },
      },
      { action: 'restart', reason: /ecc_error is listed/ },
    ],
    [
      'but never while the probe finds the GPU still broken',
      {
        errorType: 'ecc_error',
        probe: ok({ gpuFailure: 'GPU 0: uncorrectable ECC errors' }),
        policy: {
          ...preset('aggressive'),
          modes: {
            ...preset('aggressive').modes,
            crash: { restart_on: ['ecc_error'], exclude: [], default_action: 'alert' },
          },
        },
      },
      { action: 'alert', reason: /this node cannot run the job/ },
    ],
    [
      'an EFA fallback only warns, even under aggressive',
      { errorType: 'efa_fallback', policy: preset('aggressive') },
      { action: 'alert', reason: /efa_fallback is excluded/ },
    ],
    [
      'conservative restarts a preemption',
      { errorType: 'cancelled_preempted', policy: preset('conservative') },
      { action: 'restart' },
    ],
    [
      'conservative never restarts a stall',
      { state: RunState.STALLED, errorType: 'hang', policy: preset('conservative') },
      { action: 'alert', reason: /hang is not listed/ },
    ],
    [
      'transient restarts a confirmed hang even though the process is alive',
      { state: RunState.STALLED, errorType: 'hang', probe: ok({ processAlive: true }) },
      { action: 'restart' },
    ],
    [
      'a crash whose process is still alive is not restarted',
      { probe: ok({ processAlive: true }) },
      { action: 'alert', reason: /still running although the run reported an error/ },
    ],
    [
      'a timeout whose process is alive is not restarted',
      { state: RunState.TIMED_OUT, errorType: 'cancelled_preempted', probe: ok({ processAlive: true }) },
      { action: 'alert', reason: /heartbeats stopped/ },
    ],
    [
      'an unknown process state blocks a restart',
      { probe: ok({ processAlive: null }) },
      { action: 'alert', reason: /could not confirm the training process is gone/ },
    ],
    [
      'a full disk blocks a restart',
      { probe: ok({ diskFull: 'disk /checkpoints 100% full — free space before restarting' }) },
      { action: 'alert', reason: /disk \/checkpoints 100% full/ },
    ],
    [
      'a dead GPU blocks a restart',
      { probe: ok({ gpuFailure: 'GPU 3: Xid 79, fallen off the bus — replace the node' }) },
      { action: 'alert', reason: /cannot run the job: GPU 3: Xid 79/ },
    ],
    [
      'a failed probe blocks a restart',
      { probe: { ok: false, finding: 'instance i-0abc12345 is not managed by SSM' } },
      { action: 'alert', reason: /could not check the instance: instance i-0abc12345/ },
    ],
    [
      'an incomplete diagnosis blocks a restart',
      { probe: ok({ truncated: true }) },
      { action: 'alert', reason: /incomplete/ },
    ],
    [
      'retries exhausted',
      { restarts: 3, attempt: 4, bestSteps: { 1: 1, 2: 2, 3: 3, 4: 4 } },
      { action: 'give_up', reason: /retries exhausted \(3 of 3/ },
    ],
    [
      'a crash loop gives up before the budget',
      { attempt: 3, restarts: 2, bestSteps: { 1: 900, 2: 400, 3: 850 } },
      { action: 'give_up', reason: /attempts 2 and 3 both died without getting past step 900/ },
    ],
    [
      'progress in the last attempt is not a loop',
      { attempt: 3, restarts: 2, bestSteps: { 1: 900, 2: 400, 3: 1200 } },
      { action: 'restart', reason: /attempt 4/ },
    ],
    [
      'a state that is not a failure',
      { state: RunState.WARNING },
      { action: 'alert', reason: /WARNING is not a failure/ },
    ],
  ])('%s', (_, over, expected) => {
    const d = decide(input(over));
    expect(d.action).toBe(expected.action);
    if (expected.reason) expect(d.reason).toMatch(expected.reason);
    if (d.action === 'restart') expect(d.nextAttempt).toBe((over.attempt ?? 1) + 1);
  });

  it('backs off exponentially between restarts, up to the cap', () => {
    const p = preset('transient');
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffMs(p, n))).toEqual([
      60_000, 120_000, 240_000, 480_000, 900_000, 900_000,
    ]);
    expect(decide(input({ restarts: 2, attempt: 3, bestSteps: { 1: 1, 2: 2, 3: 3 } })).delayMs).toBe(240_000);
  });
});

interface DecideInputExpect {
  action: 'restart' | 'alert' | 'give_up';
  reason?: RegExp;
}

describe('crashLoop', () => {
  it.each([
    [2, { 1: 100, 2: 50 }, false],
    [3, { 1: 100, 2: undefined, 3: undefined }, true],
    [3, { 1: 100, 2: 150, 3: 120 }, false],
    [4, { 1: 100, 2: 150, 3: 140, 4: 150 }, true],
  ] as const)('attempt %i with best steps %j → loop: %s', (attempt, steps, loop) => {
    expect(crashLoop(attempt, steps) !== undefined).toBe(loop);
  });
});

describe('loadPolicy', () => {
  it('returns a preset by name and none by default', () => {
    expect(loadPolicy('aggressive').max_restarts).toBe(5);
    expect(loadPolicy(undefined).name).toBe('none');
    expect(loadPolicy('').name).toBe('none');
  });

  it('loads JSON and YAML, and extends a preset', () => {
    const json = loadPolicy(
      JSON.stringify({ name: 'mine', max_restarts: 2, modes: { crash: { restart_on: ['nccl'] } } }),
    );
    expect(json).toMatchObject({
      name: 'mine',
      max_restarts: 2,
      backoff: { initial_seconds: 60 },
      modes: { stall: { default_action: 'alert' } },
    });
    const yaml = loadPolicy('extends: transient\nmax_restarts: 1\nbackoff:\n  initial_seconds: 5\n');
    expect(yaml).toMatchObject({
      max_restarts: 1,
      backoff: { initial_seconds: 5, factor: 2 },
      modes: preset('transient').modes,
    });
  });

  it.each([
    ['bogus', /not a preset/],
    ['{"name": "x", "max_restarts": -1, "modes": {}}', /max_restarts/],
    [
      '{"name": "x", "max_restarts": 1, "modes": {"crash": {"restart_on": ["Not A Type"]}}}',
      /modes\.crash\.restart_on\.0/,
    ],
    ['{"name": "x", "max_restarts": 1, "modes": {"crash": {"default_action": "reboot"}}}', /default_action/],
    ['extends: nope', /extends "nope"/],
  ])('rejects %j with a clear error', (text, message) => {
    expect(() => loadPolicy(text)).toThrow(ConfigError);
    expect(() => loadPolicy(text)).toThrow(message);
  });
});
