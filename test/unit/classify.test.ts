import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PROFILES,
  classify,
  classifyDetailed,
  ERROR_TYPES,
  isRestartable,
  loadProfile,
} from '../../lambdas/core/classify/index.js';
import { ConfigError } from '../../lambdas/core/errors.js';

describe('classify', () => {
  it('returns error_type null and no signal when nothing matches', () => {
    expect(classify('step 100 | loss 2.31 | error_rate 0.01 | lr 3e-4')).toEqual({
      error_type: null,
      restartable: false,
      signal: null,
      severity: null,
      fields: {},
    });
  });

  it('extracts the allocation size of a CUDA OOM in both PyTorch message formats', () => {
    const old = classify(
      'RuntimeError: CUDA out of memory. Tried to allocate 2.26 GiB (GPU 0; 6.00 GiB total capacity;',
    );
    const now = classify(
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 3 has a total capacity of 79.15 GiB of which 5.06 MiB is free.',
    );
    expect(old).toMatchObject({
      error_type: 'oom',
      restartable: false,
      fields: { alloc_size: '2.26 GiB', gpu: '0', gpu_total: '6.00 GiB' },
    });
    expect(now.fields).toEqual({ alloc_size: '20.00 MiB', gpu: '3', gpu_total: '79.15 GiB' });
  });

  it('prefers the root cause over its symptoms (OOM beats the NCCL errors of the other ranks)', () => {
    const text = [
      '[rank1]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1331, unhandled system error',
      '[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.',
      '[rank1]: RuntimeError: Connection reset by peer',
    ].join('\n');
    const d = classifyDetailed(text);
    expect(d.error_type).toBe('oom');
    expect(d.matches.map((m) => m.signal)).toEqual(
      expect.arrayContaining(['nccl_error', 'connection_lost', 'python_exception']),
    );
  });

  it('reports a warning signal without an error type when only a warning matched', () => {
    const text =
      'x:1:1 [0] NCCL WARN NET/OFI Could not find any optimal provider\nx:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>';
    const d = classifyDetailed(text, 'nccl');
    expect(d).toMatchObject({ error_type: null, restartable: false, severity: 'warning' });
    expect(d.matches.map((m) => m.signal)).toContain('nccl_socket_fallback');
  });

  it('does not call socket transport a fallback when no EFA plugin was expected', () => {
    expect(classifyDetailed('h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>').matches).toEqual(
      [],
    );
    // Every NCCL without a network plugin prints this: it says nothing about EFA.
    const plain =
      'h:1:1 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).\nh:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>';
    expect(classifyDetailed(plain).matches.map((m) => m.signal)).not.toContain('nccl_socket_fallback');
  });

  it('ignores the tokenizers fork warning that mentions deadlocks', () => {
    const text =
      'huggingface/tokenizers: The current process just got forked, after parallelism has already been used. Disabling parallelism to avoid deadlocks...';
    expect(classify(text).error_type).toBeNull();
    expect(classify('rank 3: possible deadlock detected in collective').error_type).toBe('deadlock');
  });

  it("does not take torchrun's own 'closing signal SIGTERM' for a preemption", () => {
    const text =
      'WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 899505 closing signal SIGTERM';
    expect(classify(text).error_type).toBeNull();
  });

  it('limits a run to the signals of its profile and falls back to production for an unknown name', () => {
    const hang = 'rank 2 appears to be hung in all_reduce';
    expect(classify(hang, 'basic').error_type).toBeNull();
    expect(classify(hang, 'stall').error_type).toBe('hang');
    expect(classify(hang, 'no-such-profile').error_type).toBe('hang');
  });
});

describe('isRestartable', () => {
  it.each([
    ['oom', false],
    ['cpu_oom_killed', false],
    ['disk_full', false],
    ['numerical_instability', false],
    ['exception', false],
    ['torch', false],
    ['nccl', true],
    ['nccl_timeout', true],
    ['distributed_timeout', true],
    ['watchdog_timeout', true],
    ['communication', true],
    ['hang', true],
    ['deadlock', true],
    ['gpu_xid', true],
    ['ecc_error', true],
    ['cancelled_preempted', true],
    ['efa_fallback', false],
    ['made_up', false],
    [null, false],
  ])('%s → %s', (type, expected) => {
    expect(isRestartable(type)).toBe(expected);
  });

  it('covers every built-in error type and every built-in signal uses one of them (or none)', () => {
    expect(ERROR_TYPES).toHaveLength(17);
    for (const s of BUILTIN_PROFILES.get('production')!.signals)
      if (s.error_type !== null) expect(ERROR_TYPES).toContain(s.error_type);
  });
});

describe('loadProfile', () => {
  it('loads a YAML profile that extends a built-in one, overrides a signal and disables another', () => {
    const p = loadProfile(`
name: team-a
extends: [production]
disable: [deadlock]
signals:
  - name: cuda_oom
    pattern: 'OOM on rank (?<rank>\\d+)'
    error_type: oom
    severity: critical
    subsystem: cuda
    priority: 90
  - name: dataset_corrupt
    pattern: 'corrupt shard (?<shard>\\S+)'
    error_type: bad_data
    severity: error
    subsystem: data
    priority: 75
    restartable: false
`);
    expect(p.signals.some((s) => s.name === 'deadlock')).toBe(false);
    expect(classify('OOM on rank 7', p)).toMatchObject({ error_type: 'oom', fields: { rank: '7' } });
    expect(classify('corrupt shard s3://x/17.tar', p)).toMatchObject({
      error_type: 'bad_data',
      restartable: false,
    });
    expect(classify('possible deadlock in rank 1', p).error_type).toBeNull();
  });

  it('loads JSON', () => {
    const p = loadProfile(
      JSON.stringify({
        name: 'tiny',
        signals: [
          {
            name: 'boom',
            pattern: 'boom',
            error_type: 'hang',
            severity: 'error',
            subsystem: 'x',
            priority: 1,
          },
        ],
      }),
    );
    expect(classify('BOOM', p)).toMatchObject({ error_type: 'hang', restartable: true, signal: 'boom' });
  });

  it.each([
    ['not: [valid', /neither JSON nor YAML/],
    [
      'name: x\nsignals:\n  - name: a\n    pattern: "("\n    error_type: oom\n    severity: error\n    subsystem: x\n    priority: 1',
      /signals\.0\.pattern: is not a valid regex/,
    ],
    [
      'name: x\nsignals:\n  - name: a\n    pattern: a\n    error_type: oom\n    severity: loud\n    subsystem: x\n    priority: 1',
      /signals\.0\.severity/,
    ],
    [
      'name: x\nsignals:\n  - name: a\n    pattern: a\n    flags: g\n    error_type: oom\n    severity: error\n    subsystem: x\n    priority: 1',
      /flags/,
    ],
    [
      'name: x\nsignals:\n  - name: a\n    pattern: a\n    fields: [size]\n    error_type: oom\n    severity: error\n    subsystem: x\n    priority: 1',
      /names size, which is not a named group/,
    ],
    ['name: x\nextends: [nope]', /extends unknown profile "nope"/],
    ['name: x\nextends: [basic]\ndisable: [nope]', /disable names "nope"/],
    ['name: x\nunknown_key: 1', /unknown_key|Unrecognized/],
  ])('rejects %j with a clear error', (text, message) => {
    expect(() => loadProfile(text)).toThrow(ConfigError);
    expect(() => loadProfile(text)).toThrow(message);
  });
});
