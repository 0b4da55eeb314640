import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lambdas/core/base/errors.js';
import {
  BUILTIN_PROFILES,
  classify,
  classifyDetailed,
  ERROR_TYPES,
  isRestartable,
  loadProfile,
} from '../../../lambdas/core/classify/index.js';

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
    const d = classifyDetailed('x:1:1 [0] NCCL WARN Failed to open libibverbs.so[.1]', 'nccl');
    expect(d).toMatchObject({
      error_type: null,
      restartable: false,
      severity: 'warning',
      signal: 'nccl_warn',
    });
    expect(d.matches.map((m) => m.signal)).toEqual(['nccl_warn']);
  });

  it('calls it efa_fallback (a warning, no restart) when the OFI plugin finds no provider and NCCL uses sockets', () => {
    const text =
      'x:1:1 [0] NCCL WARN NET/OFI Could not find any optimal provider\nx:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>';
    const d = classifyDetailed(text, 'nccl');
    expect(d).toMatchObject({ error_type: 'efa_fallback', restartable: false, severity: 'warning' });
    expect(d.matches.map((m) => m.signal)).toContain('nccl_socket_fallback');
    expect(classify('h:1:1 [0] NCCL INFO NET/OFI Selected Provider is tcp;ofi_rxm')).toMatchObject({
      error_type: 'efa_fallback',
      fields: { provider: 'tcp;ofi_rxm' },
    });
    expect(
      classify('h:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)').error_type,
    ).toBeNull();
  });

  it('tells ECC apart from other Xids, in every driver format, and ignores healthy counters', () => {
    expect(classify('NVRM: Xid (PCI:0000:3b:00): 48, pid=1, DBE (double bit error)').error_type).toBe(
      'ecc_error',
    );
    expect(classify('kernel: NVRM: Xid (PCI:0000:3b:00): 94, pid=1, Contained: SM').error_type).toBe(
      'ecc_error',
    );
    expect(classify('RuntimeError: CUDA error: uncorrectable ECC error encountered').error_type).toBe(
      'ecc_error',
    );
    expect(
      classify('XidCriticalError: Xid=69 on Device=GPU-7540a9b3, the device will go unhealthy.'),
    ).toMatchObject({
      error_type: 'gpu_xid',
      fields: { xid: '69' },
    });
    expect(classify('Detected XID error 79 on GPU 3').error_type).toBe('gpu_xid');
    expect(classify('        Double Bit ECC Errors          : 0\n    XID errors: 0').error_type).toBeNull();
  });

  it('finds non-finite metrics in any logger format, and a run of nan grad norms', () => {
    for (const line of [
      "{'loss': nan, 'grad_norm': 1.0, 'epoch': 0.1}",
      'Epoch(train) [1][50/100]  lr: 1.0000e-04  loss: nan  loss_cls: nan',
      'Epoch 0:  10%|█ | 5/50 [00:01<00:10, loss=nan, v_num=0]',
      ' iteration      100/  1000 | lm loss: NaN | loss scale: 1.0 |',
      'step:3 - critic/vf_loss:nan - actor/pg_loss:0.1',
      "{'train_loss': tensor(inf, device='cuda:0')}",
    ])
      expect([line, classify(line).error_type]).toEqual([line, 'numerical_instability']);
    const one = "{'loss': 1.2, 'grad_norm': nan, 'epoch': 0.1}";
    expect(classify(one).error_type).toBeNull(); // a skipped fp16 step
    expect(classify([one, one, one].join('\n'))).toMatchObject({
      error_type: 'numerical_instability',
      signal: 'grad_norm_not_finite_repeated',
    });
  });

  it('reads signal 9, the agent receiving SIGHUP/SIGINT/SIGTERM, and stack dumps in a collective', () => {
    expect(classify('[ERROR] [launch.py:324:sigkill_handler] exits with return code = -9').error_type).toBe(
      'cpu_oom_killed',
    );
    expect(classify('api.py:723] Received 1 death signal, shutting down workers').error_type).toBe(
      'cancelled_preempted',
    );
    const pyspy = [
      'Thread 33550 (active): "MainThread"',
      '    all_reduce (torch/distributed/distributed_c10d.py:2924)',
      '    step (deepspeed/runtime/zero/stage3.py:2120)',
    ].join('\n');
    expect(classify(pyspy)).toMatchObject({ error_type: 'hang', signal: 'stack_in_collective' });
    // A traceback through the same frame is an error, not a hang.
    const tb = '  File "/x/torch/distributed/distributed_c10d.py", line 2924, in all_reduce\nValueError: bad';
    expect(classify(tb).error_type).toBe('exception');
  });

  it('calls gdb on a waiting process a hang, but not the backtrace of a crash (excludes)', () => {
    const live =
      '(gdb) bt\n#0  0x00007f2e766c9827 in sched_yield () at syscall-template.S:84\n#1  0x40890f in TimeTest()';
    expect(classify(live)).toMatchObject({ error_type: 'hang', signal: 'gdb_thread_waiting' });
    const crash = `Program received signal SIGSEGV, Segmentation fault.\n${live}`;
    expect(classify(crash).error_type).toBe('exception');
  });

  it('lets a profile count lines (min_lines) and switch a signal off by context (excludes)', () => {
    const p = loadProfile(`
name: counted
signals:
  - name: retry
    pattern: 'retrying shard'
    min_lines: 2
    excludes: 'dry run'
    error_type: communication
    severity: error
    subsystem: data
    priority: 5
`);
    expect(classify('retrying shard 1', p).error_type).toBeNull();
    expect(classify('retrying shard 1\nretrying shard 2', p)).toMatchObject({ error_type: 'communication' });
    expect(classify('dry run\nretrying shard 1\nretrying shard 2', p).error_type).toBeNull();
  });

  it('puts the cause first whatever the signal priorities: a full disk over the exception it raised, an Xid over NCCL', () => {
    const disk = classifyDetailed(
      'OSError: [Errno 28] No space left on device\nRuntimeError: NCCL error in: x.cpp:1, unhandled system error',
    );
    expect(disk.error_type).toBe('disk_full');
    const xid = classifyDetailed(
      'NVRM: Xid (PCI:0000:3b:00): 79, pid=1\n[rank0]: torch.OutOfMemoryError: CUDA out of memory.',
    );
    expect(xid.error_type).toBe('gpu_xid');
    const sigkill = classifyDetailed(
      'Killed\nRuntimeError: CUDA error: an illegal memory access was encountered',
    );
    // sigkill (priority 60) beats cuda_runtime_error (priority 70): host memory outranks code.
    expect(sigkill.error_type).toBe('cpu_oom_killed');
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

  it('reads a stuck process from how it was inspected: gdb attached, Ctrl-C in a DataLoader or a collective, zombie workers', () => {
    expect(classify('(gdb) info threads\n* 1    Thread 0x7f (LWP 1) "" select_poll_poll ()').error_type).toBe(
      'hang',
    );
    expect(
      classify('Program received signal SIGSEGV, Segmentation fault.\n(gdb) bt\n#0  0x0 in f ()').error_type,
    ).toBe('exception');
    const dl = [
      'Traceback (most recent call last):',
      '  File "/x/torch/utils/data/dataloader.py", line 942, in _shutdown_workers',
      '    w.join()',
      'KeyboardInterrupt',
    ].join('\n');
    expect(classify(dl)).toMatchObject({ error_type: 'deadlock', signal: 'interrupted_in_dataloader' });
    // The same frame in a traceback that ended in an ordinary error is that error, not a stall.
    expect(classify(dl.replace('KeyboardInterrupt', 'ValueError: bad batch')).error_type).toBe('exception');
    const coll = [
      '  File "/x/torch/distributed/distributed_c10d.py", line 3439, in barrier',
      '    work.wait()',
      'KeyboardInterrupt',
    ].join('\n');
    expect(classify(coll)).toMatchObject({ error_type: 'hang', signal: 'interrupted_in_collective' });
    expect(classify('user+  58 51.7  0.0  0  0 ?  Z  14:27  26:20 [python] <defunct>').error_type).toBe(
      'deadlock',
    );
    expect(
      classify(
        'Thread (idle): "MainThread"\n    get (queue.py:180)\n    _get_data (torch/utils/data/dataloader.py:1473)',
      ).error_type,
    ).toBe('deadlock');
  });

  it('calls an application Xid alone a GPU fault, but leaves it to the application error when there is one', () => {
    const dmesg = '[  170.05] NVRM: Xid (PCI:0000:01:00): 31, Ch 00000013, engmask 00000101, intr 10000000';
    expect(classify(dmesg)).toMatchObject({ error_type: 'gpu_xid', signal: 'gpu_xid_application_alone' });
    expect(
      classify(
        "NVRM: Xid (PCI:0000:43:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception: ESR 0x52e7b0=0x101000e",
      ).error_type,
    ).toBe('gpu_xid');
    expect(
      classify(`${dmesg}\nRuntimeError: CUDA error: an illegal memory access was encountered`).error_type,
    ).toBe('torch');
  });

  it('calls a full /dev/shm disk_full, a CUDA fault reported by NCCL torch, and a missing state_dict key torch', () => {
    expect(
      classify('NCCL WARN Error while creating shared memory segment /dev/shm/nccl-abc (size 9637888)')
        .error_type,
    ).toBe('disk_full');
    expect(
      classify(
        "NCCL WARN Cuda failure 'invalid argument'\nNCCL WARN Error while creating shared memory segment /dev/shm/x",
      ).error_type,
    ).toBe('nccl');
    expect(
      classify(
        "h:1:2 [1] include/alloc.h:125 NCCL WARN Cuda failure 700 'an illegal memory access was encountered'\nh:1:2 [1] NCCL INFO include/alloc.h:246 -> 1",
      ).error_type,
    ).toBe('torch');
    expect(classify('RuntimeError: Missing key in checkpoint state_dict: model.2.weight').error_type).toBe(
      'torch',
    );
  });

  it('calls a job that expected EFA but whose NCCL found no net plugin efa_fallback', () => {
    const text = '"FI_PROVIDER": "efa",\n[1] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).';
    expect(classify(text).error_type).toBe('efa_fallback');
    expect(classify('[1] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).').error_type).toBeNull();
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
