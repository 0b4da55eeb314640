import { describe, expect, it } from 'vitest';
import { classifyDetailed } from '../../../lambdas/core/classify/index.js';
import { itClassifiesEachRow, itStaysHealthy, type SignalRow } from '../../support/classifyRows.js';

// Fifth blind round: the same failures as other runtimes, schedulers and tools print them (MPI, UCX, Gloo, Windows
// sockets, JAX's coordination service, LSF, HTCondor, submitit, Kubernetes events, SageMaker, shells, gdb). Synthetic
// lines written from each tool's documented or source-level format, never corpus excerpts, never counted as
// accuracy; each row names the signal it exercises.
const FAILURES: readonly SignalRow[] = [
  // Schedulers and launchers that stop a job from outside.
  ['cancelled_preempted', 'sigterm', 'Job <48151> is being terminated'],
  [
    'cancelled_preempted',
    'sigterm',
    'submitit WARNING (2024-01-01 10:00:00,000) - Caught signal SIGUSR2 on gpu12: this job is timed-out.',
  ],
  [
    'cancelled_preempted',
    'spot_interruption',
    'submitit WARNING - Caught signal SIGUSR1 on gpu12: this job is preempted.',
  ],
  ['cancelled_preempted', 'sigterm', '[rank: 0] Received SIGTERM: 15\nBypassing SIGTERM: 15'],
  [
    'cancelled_preempted',
    'sigterm',
    'train.sh: line 12: 40211 Terminated              python train.py --cfg a.yaml',
  ],
  ['cancelled_preempted', 'sigterm', 'nohup: ignoring input\nHangup'],
  ['cancelled_preempted', 'sigterm', 'Exception: training interrupted by SIGTERM at step 1200'],
  [
    'cancelled_preempted',
    'spot_interruption',
    '009 (123.000.000) 01/01 10:00:00 Job was aborted.\n\tvia condor_rm (by user alice)',
  ],
  [
    'cancelled_preempted',
    'spot_interruption',
    '  Warning  Preempted  2m  kubelet  Preempted in order to admit critical pod',
  ],
  [
    'cancelled_preempted',
    'spot_interruption',
    'FailureReason: Training job interrupted due to a capacity interruption. The managed spot training job was stopped.',
  ],
  // MPI runtimes, UCX, Gloo and Windows sockets losing a peer.
  [
    'communication',
    'connection_lost',
    'Fatal error in PMPI_Allreduce: Unknown error class, error stack:\nMPIDI_CH3I_Progress(123): Communication error with rank 3',
  ],
  [
    'communication',
    'connection_lost',
    '[node2:12345] [[1234,1],3] ORTE_ERROR_LOG: Unreachable in file rml_oob_send.c at line 123',
  ],
  [
    'communication',
    'connection_lost',
    '[node1:1234:0:1234] ib_mlx5_log.c:174  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)',
  ],
  [
    'communication',
    'connection_lost',
    '[n1:1234 :0:1250] ud_ep.c:278  Fatal: UD endpoint 0x1234 to <no debug data>: unhandled timeout error',
  ],
  [
    'communication',
    'connection_lost',
    '[E ProcessGroupGloo.cpp:138] Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error',
  ],
  [
    'communication',
    'connection_lost',
    'ConnectionResetError: [WinError 10054] An existing connection was forcibly closed by the remote host',
  ],
  [
    'communication',
    'connection_lost',
    'MPIDU_Sock_wait(2606): The specified network name is no longer available. (errno 64)',
  ],
  [
    'communication',
    'connection_lost',
    'No connection could be made because the target machine actively refused it. (WSAECONNREFUSED)',
  ],
  // Coordinators and stores that timed out waiting for their peers.
  [
    'distributed_timeout',
    'process_group_timeout',
    'deepspeed.launcher: Timed out waiting for workers to rendezvous',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'RuntimeError: Timed out waiting for coordinator to register all workers',
  ],
  ['distributed_timeout', 'process_group_timeout', 'RuntimeError: Wait timeout'],
  [
    'distributed_timeout',
    'raised_wait_timeout',
    '2024-01-01 10:00:00.000123: E external/xla/xla/pjrt/distributed/client.cc:80] Failed to connect to distributed JAX controller: DEADLINE_EXCEEDED: Deadline Exceeded',
  ],
  // Monitors' hedged verdicts on a stuck job; launchers that keep waiting.
  [
    'hang',
    'hang_reported',
    '[2024-01-01 14:00:00] [WARNING] no log output for 3600 seconds, training may be stuck',
  ],
  ['hang', 'hang_reported', '[ERROR] Training job has been idle for 3600 seconds. Aborting.'],
  [
    'hang',
    'hang_reported',
    'WARNING: the training appears to have stalled: no step completed in the last 30 minutes',
  ],
  ['hang', 'hang_reported', 'monitor: no steps completed for 45 minutes on rank 3'],
  [
    'hang',
    'waiting_repeated',
    Array.from(
      { length: 6 },
      (_, i) => `I0101 10:0${i}:00.000 coordination_service.cc] Waiting for 1/8 tasks to connect.`,
    ).join('\n'),
  ],
  [
    'hang',
    'waiting_repeated',
    Array.from(
      { length: 5 },
      () => 'W0101 api.py] [default] Rendezvous still waiting: 1/2 nodes joined',
    ).join('\n'),
  ],
  // gdb's own Ctrl-C is a person dumping a live process: its backtrace says where it waits, not a cancellation.
  [
    'deadlock',
    'gdb_mutex_wait',
    'Thread 1 "python" received signal SIGINT, Interrupt.\n#0  __lll_lock_wait (futex=0x55, private=0) at lowlevellock.c:52\n#1  0x00007f12 in __GI___pthread_mutex_lock (mutex=0x55) at pthread_mutex_lock.c:80',
  ],
  [
    'hang',
    'native_stack_waiting',
    'Program received signal SIGINT, Interrupt.\n#0  0x00007f12 in pthread_cond_wait@@GLIBC_2.3.2 () from libpthread.so.0\n#1  0x00007f13 in c10d::ProcessGroupNCCL::WorkNCCL::wait ()',
  ],
  [
    'hang',
    'gdb_threads_dumped',
    'Thread 3 (Thread 0x7f1234 (LWP 4567)) "python":\n#0  0x00007f12 in ioctl () from /lib/x86_64-linux-gnu/libc.so.6\n#1  0x00007f13 in ?? () from /usr/lib/x86_64-linux-gnu/libcuda.so.1\nThread 2 (Thread 0x7f1235 (LWP 4568)) "python":\n#0  0x00007f12 in read () from /lib/x86_64-linux-gnu/libc.so.6',
  ],
  // Ctrl-C as Python and SLURM report it.
  [
    'cancelled_preempted',
    'keyboard_interrupt',
    '^CTraceback (most recent call last):\n  File "train.py", line 80, in main\n    loss = model(x)\nKeyboardInterrupt',
  ],
  [
    'cancelled_preempted',
    'sigint',
    'srun: interrupt (one more within 1 sec to abort)\nsrun: sending Ctrl-C to StepId=1234.0',
  ],
  // NCCL's CUDA failure under its own error code is the GPU's memory.
  [
    'oom',
    'cuda_oom_other',
    "RuntimeError: NCCL error in: NCCLUtils.hpp:121, unhandled cuda error\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'out of memory'",
  ],
];

// Look-alikes: settings, hints, handlers and retries that name the same words on healthy runs.
const HEALTHY: readonly string[] = [
  'If training seems stuck, set NCCL_DEBUG=INFO and TORCH_DISTRIBUTED_DEBUG=DETAIL',
  'Registered handler to checkpoint and exit on SIGTERM',
  'Lightning: will requeue the job on SIGTERM (SLURMEnvironment auto_requeue=True)',
  'UCX_RC_TIMEOUT=1s (endpoint timeout 30s)',
  'Waiting for 1/8 tasks to connect.\nAll 8 tasks connected.',
  'Rendezvous still waiting: 1/2 nodes joined\nRendezvous complete for workers. Result: restart_count=0',
  'dataset column "result" contains nan in 3 rows; they are dropped',
  'step 100 | loss: 0.0 | eval_error: 0.12 | Xid errors: 0',
  'NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\nNCCL INFO comm 0x55 rank 0 nranks 8 - Init COMPLETE',
  "WARNING urllib3.connectionpool: Retrying (Retry(total=4)) after connection broken by 'ConnectionResetError(10054, 'An existing connection was forcibly closed by the remote host', None, 10054, None)': /simple/torch/",
];

describe('signals read the same failure as other runtimes print it (fifth round)', () => {
  itClassifiesEachRow(FAILURES);

  itStaysHealthy(HEALTHY);

  it('a core file dumped by gdb is a crash, not a live process that stopped moving', () => {
    const d = classifyDetailed(
      'Core was generated by `python train.py`.\nThread 2 (Thread 0x7f1 (LWP 11)):\n#0  0x00007f in read () from libc.so.6\nThread 1 (Thread 0x7f2 (LWP 12)):\n#0  0x00007f in raise () from libc.so.6',
    );
    expect(d.matches.map((m) => m.signal)).not.toContain('gdb_threads_dumped');
  });

  it('gdb stopping a process with Ctrl-C is neither a crash nor a cancellation', () => {
    const d = classifyDetailed(
      'Program received signal SIGINT, Interrupt.\n#0  0x00007f in pthread_cond_wait () from libc.so.6',
    );
    expect(
      d.matches.filter((m) => m.error_type === 'cancelled_preempted' || m.error_type === 'exception'),
    ).toEqual([]);
  });
});
