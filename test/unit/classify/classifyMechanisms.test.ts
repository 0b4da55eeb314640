import { describe, expect, it } from 'vitest';
import { classifyDetailed } from '../../../lambdas/core/classify/index.js';
import {
  itClassifiesEachRow,
  itIsNoStall,
  itStaysHealthy,
  type SignalRow,
} from '../../support/classifyRows.js';

// Ninth blind round: the same mechanisms in the words of software no development excerpt shows (other schedulers,
// autoscalers, managed services, launchers, trainers, table loggers). Synthetic lines written from how such software
// prints, never corpus excerpts, never counted as accuracy; each row names the signal it exercises.
const FAILURES: readonly SignalRow[] = [
  // A stop from outside: a command that failed with SIGTERM, a handler that caught it, a named scheduler or autoscaler.
  [
    'cancelled_preempted',
    'stop_signal_or_limit',
    'The job was killed by SLURM after exceeding its allocation',
  ],
  ['cancelled_preempted', 'stop_signal_or_limit', 'Error: command failed with signal SIGTERM'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'panic: process crashed with signal: SIGHUP'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'SIGTERM caught, saving checkpoint and exiting'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'INFO trap: SIGHUP trapped, flushing logs'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'Terminating due to SIGTERM'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'worker 3 quitting upon SIGTERM'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'Node ip-10-1-2-3 was terminated by the autoscaler'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'The worker was shut down by the cluster autoscaler'],
  [
    'cancelled_preempted',
    'stop_signal_or_limit',
    'The instance was stopped by AWS because of a spot price change',
  ],
  ['cancelled_preempted', 'stop_signal_or_limit', 'job 8812 killed by PBS'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'Container killed by kubelet'],
  // A managed service's job or run status that says it was stopped or cancelled.
  ['cancelled_preempted', 'stop_signal_or_limit', 'TrainingJobStatus: Stopped, SecondaryStatus: Stopped'],
  ['cancelled_preempted', 'stop_signal_or_limit', '{"RunStatus": "Cancelled"}'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'PipelineStatus=Stopping'],
  // A cloud's notice, said noun first.
  ['cancelled_preempted', 'spot_interruption', 'Azure: VM eviction notice received (Spot VM)'],
  ['cancelled_preempted', 'spot_interruption', 'Spot termination notice received, draining'],
  ['cancelled_preempted', 'spot_interruption', 'node preemption warning has been issued for gke-pool-1-abc'],
  // Set-up that did not complete within its limit, a named peer that failed to join, torchelastic's exit barrier.
  [
    'distributed_timeout',
    'peers_never_joined',
    'The rendezvous did not complete within the join timeout (600s)',
  ],
  ['distributed_timeout', 'peers_never_joined', 'Barrier did not complete within 1800 seconds'],
  ['distributed_timeout', 'peers_never_joined', 'handshake failed to complete before the deadline'],
  [
    'distributed_timeout',
    'peers_never_joined',
    "torch.distributed.elastic.rendezvous.api.RendezvousError: The node 'x' has failed to join the rendezvous within 600s",
  ],
  ['distributed_timeout', 'peers_never_joined', 'agent gpu-node-7:29400 did not join within 900 seconds'],
  [
    'distributed_timeout',
    'peers_never_joined',
    '[ERROR] Error waiting on exit barrier. Elapsed: 300.0004 seconds',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    "RuntimeError: Timed out waiting for store key 'ncclUniqueId'",
  ],
  ['distributed_timeout', 'process_group_timeout', 'Timeout waiting for keys [rank0, rank1] in the store'],
  // A communicator aborted for a reason that is no timeout is what that reason names.
  [
    'communication',
    'connection_lost',
    'RuntimeError: NCCL communicator was aborted on rank 0. Original reason for failure was: NCCL error: remote process exited or there was a network error',
  ],
  // nan found in what a model computes, said in either order; a run said to have diverged; a scale at its minimum.
  ['numerical_instability', 'nan_detected', 'NaN values detected in the model output at step 1200'],
  ['numerical_instability', 'nan_detected', 'Detected NaN in attention weights'],
  ['numerical_instability', 'nan_detected', 'found inf in the embeddings of layer 3'],
  ['numerical_instability', 'nan_detected', 'Gradients have become NaN, stopping'],
  ['numerical_instability', 'nan_detected', 'Training diverged at step 3000'],
  ['numerical_instability', 'nan_detected', 'ERROR divergence detected, aborting run'],
  ['numerical_instability', 'loss_scale_minimum', 'Loss scale reached minimum value, training diverged'],
  [
    'numerical_instability',
    'loss_scale_minimum',
    'WARNING loss scale already at minimum, cannot reduce further',
  ],
  ['numerical_instability', 'loss_not_finite', 'train_loss  ┃  nan'],
  ['numerical_instability', 'loss_not_finite', '│ train_loss │ nan │'],
  [
    'numerical_instability',
    'grads_not_finite_repeated',
    'NaN gradients detected, skipping step\nNaN gradients detected, skipping step\nNaN gradients detected, skipping step',
  ],
  [
    'numerical_instability',
    'grads_not_finite_repeated',
    'detected inf gradients on rank 0\ndetected inf gradients on rank 0\ndetected inf gradients on rank 0',
  ],
  // The GPU out of memory in short words; host memory kills by YARN and Ray.
  ['oom', 'cuda_oom_other', 'GPU OOM at step 120, reduce batch size'],
  ['oom', 'cuda_oom_other', 'OOM on device 2 while compiling the graph'],
  ['oom', 'cuda_oom_other', 'ValueError: Out of memory on device 0 while allocating'],
  [
    'cpu_oom_killed',
    'host_oom_kill',
    'Container killed by YARN for exceeding memory limits. 10.1 GB of 10 GB physical memory used.',
  ],
  [
    'cpu_oom_killed',
    'host_oom_kill',
    'The actor is dead because its worker process has died. Worker exit type: NODE_OUT_OF_MEMORY',
  ],
  // The kubelet evicting pods from a node low on memory: the host's memory ran out; low on disk: the disk is full.
  [
    'cpu_oom_killed',
    'host_oom_kill',
    'Warning  Evicted  pod/worker-3  The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi.',
  ],
  ['cpu_oom_killed', 'host_oom_kill', 'Events: Evicted  The node had condition: [MemoryPressure].'],
  ['cpu_oom_killed', 'host_oom_kill', 'pod trainer-0 evicted by kubelet due to node memory pressure'],
  [
    'disk_full',
    'disk_full',
    'Warning  Evicted  pod/worker-3  The node was low on resource: ephemeral-storage.',
  ],
  // A job, build or pipeline that ran past its limit, in a CI's or a job runner's words.
  [
    'cancelled_preempted',
    'stop_signal_or_limit',
    'Build timed out (after 45 minutes). Marking the build as aborted.',
  ],
  ['cancelled_preempted', 'stop_signal_or_limit', 'ERROR: pipeline failed to finish within 3600 seconds'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'The job did not complete within 2 hours and was stopped'],
  // srun's task launch that timed out on a node: set-up never completed (the step abort that follows is no stop).
  [
    'distributed_timeout',
    'process_group_timeout',
    'srun: error: Task launch for StepId=7.0 failed on node gpu-12: Socket timed out on send/recv operation\nsrun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    "terminate called after throwing an instance of 'gloo::IoException'\n  what():  [gloo/rendezvous/http_store.cc:53] Wait timeout for key(s): rank_3",
  ],
  // A client's connect that timed out.
  [
    'communication',
    'connection_lost',
    "OSError: Timed out trying to connect to 'tcp://10.0.0.5:8786' after 30 s",
  ],
  ['communication', 'connection_lost', 'Timed out connecting to 10.1.2.3:6379'],
  ['numerical_instability', 'nan_detected', 'ValueError: probabilities contain NaN'],
  // glog's CHECK of a CUDA call (Caffe and its descendants): the CUDA error by number; 2 is out of memory.
  [
    'torch',
    'cuda_runtime_error',
    'F0101 12:00:00.000 123 syncedmem.cpp:71] Check failed: error == cudaSuccess (77 vs. 0)  an illegal memory access was encountered',
  ],
  ['oom', 'cuda_oom_other', 'Check failed: status == cudaSuccess (2 vs. 0)  out of memory'],
  ['torch', 'cuda_runtime_error', 'CUDA error: no kernel image is available for execution on the device'],
  [
    'oom',
    'cuda_oom_other',
    'cupy.cuda.memory.OutOfMemoryError: out of memory to allocate 8589934592 bytes (total 17179869184 bytes)',
  ],
  // Native backtraces parked in MPI's waits (Open MPI, MPICH), and pytest-timeout's dump of a stuck test.
  [
    'hang',
    'native_stack_waiting',
    '#0  0x00007f in pthread_spin_lock () from /lib64/libpthread.so.0\n#1  0x00007f in opal_progress () from libopen-pal.so\n#2  0x00007f in ompi_request_default_wait_all () from libmpi.so.40\n#3  0x00007f in PMPI_Barrier () from libmpi.so.40\n#4  0x00000000004a in main () at solver.c:200',
  ],
  [
    'hang',
    'native_stack_waiting',
    '#0  0x00007f in poll () from /lib64/libc.so.6\n#1  0x00007f in MPID_Progress_wait () from libmpi.so.12\n#2  0x00007f in MPIR_Wait_impl () from libmpi.so.12\n#3  0x00007f in PMPI_Allreduce () from libmpi.so.12',
  ],
  [
    'hang',
    'faulthandler_dump',
    '++++++++++++++++++++ Timeout ++++++++++++++++++++\n~~~~~~~~~~ Stack of MainThread (140000000000) ~~~~~~~~~~\n  File "/opt/app/train.py", line 88, in step\n    queue.get()',
  ],
  // Nothing arrived for a long wait, in the waiter's words; an explaining hint ("happens when …") is no conditional.
  ['hang', 'progress_not_advancing', 'WARN No heartbeat received from rank 3 in 300 seconds'],
  ['hang', 'progress_not_advancing', 'No new batch arrived within 600s, data pipeline stalled'],
  [
    'hang',
    'progress_not_advancing',
    'No available message block found in 120 seconds. This usually happens when a peer process is stuck.',
  ],
  // Exception classes named otherwise than *Error (pyarrow's, a Failure, StopIteration).
  ['exception', 'python_exception', 'pyarrow.lib.ArrowInvalid: CSV parse error: Expected 3 columns, got 4'],
  ['exception', 'python_exception', 'StopIteration'],
];

// Look-alikes: conditionals, configuration, handlers, checks that found nothing, memory statistics, NCCL INFO lines.
const HEALTHY: readonly string[] = [
  'If the job is killed by SLURM, it will be requeued automatically.',
  'signal.signal(signal.SIGTERM, handler)  # install a handler so a SIGTERM caught here saves a checkpoint',
  'Will exit on SIGTERM after saving the checkpoint',
  'TrainingJobStatus: InProgress, SecondaryStatus: Training',
  '{"RunStatus": "Completed"}',
  'If a spot termination notice is received, the handler drains the node',
  'spot termination notice handler installed',
  'Rendezvous completed within 12 seconds: 4 nodes joined',
  'exit barrier reached by all agents in 1.2 seconds',
  'NCCL INFO comm 0x55d rank 0 nranks 8 cudaDev 0 - Init COMPLETE',
  'Loss scale is 65536.0, minimum loss scale 1',
  'min_loss_scale: 1',
  'To check whether training diverged, watch the grad norm',
  'If the loss diverges, lower the learning rate',
  'No NaN values detected in the model output',
  'nan_check: passed; no nan found in weights',
  'Detected 0 NaN gradients',
  'NaN gradients detected, skipping step',
  'Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 32768.0',
  '│ train_loss │ 0.213 │',
  'tip: set PYTORCH_CUDA_ALLOC_CONF to avoid GPU OOM',
  'Max GPU memory allocated: 70.3 GB (no OOM on GPU 0)',
  'yarn.nodemanager.pmem-check-enabled=false  # containers are killed for exceeding memory limits otherwise',
  "metrics: {'eval_accuracy': 0.9, 'eval_f1': nan}",
  'Dataset statistics: missing values (nan): 12',
  'kubectl describe node: MemoryPressure   False   KubeletHasSufficientMemory   kubelet has sufficient memory available',
  'timeout: 120.0s\ntimeout method: thread',
  'build_timeout_minutes: 120',
  'Connected to 10.1.2.3:6379 after 2 retries',
  'probabilities sum to 1.0; no NaN',
  'Check failed: error == cudaSuccess (0 vs. 0)',
  'No GPUs found in 5 seconds, retrying device discovery\nFound 8 GPUs',
  'If no heartbeat received in 300 seconds, the job is restarted',
  'No errors found in 12 seconds of scanning',
  'ArrowInvalid rows skipped: 0',
];

describe('the ninth blind round: mechanisms in the words of other software', () => {
  itClassifiesEachRow(FAILURES);
});

describe('the ninth blind round: look-alikes that stay healthy', () => {
  itStaysHealthy(HEALTHY);
});

describe('the ninth blind round: a crash in an MPI collective is no stall', () => {
  itIsNoStall('crashed, not stuck', [
    '#0  0x00007f in PMPI_Allreduce () from libmpi.so.40\n#1  0x00007f in main ()\nProgram received signal SIGSEGV, Segmentation fault.',
  ]);
});

describe('the ninth blind round: registering memory with a fabric is no host out of memory', () => {
  it('NET/OFI failing to register a buffer with ENOMEM is not cpu_oom_killed', () => {
    const text =
      'NCCL WARN NET/OFI Unable to register memory (type = 1) for device 0. RC: 12, Error: Cannot allocate memory';
    expect(classifyDetailed(text).matches.map((m) => m.signal)).not.toContain('host_alloc_failed');
  });
});
