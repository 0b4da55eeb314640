import { describe } from 'vitest';
import { itClassifiesEachRow, itStaysHealthy, type SignalRow } from '../../support/classifyRows.js';

// Seventh blind round: the same failures in the shapes of software the development set does not cover (Grid Engine,
// PBS, HTCondor, YARN, SageMaker, AWS Batch, SkyPilot, GKE node pools, Paddle, Accelerate, MPI, UCX, TensorPipe,
// RCCL/HCCL, DCGM, sklearn's input checks). Synthetic lines written from each tool's documented or source-level
// message shape, never corpus excerpts, never counted as accuracy; each row names the signal it exercises.
const FAILURES: readonly SignalRow[] = [
  // Stopped from outside: a stop whose reason is a preemption, notices of any kind, nodes drained.
  [
    'cancelled_preempted',
    'spot_interruption',
    'sky.exceptions.ResourcesUnavailableError: spot cluster preempted',
  ],
  [
    'cancelled_preempted',
    'spot_interruption',
    'ERROR: (gcloud.compute.instances) Instance was stopped: preempted',
  ],
  ['cancelled_preempted', 'spot_interruption', '{"name": "train-tpu", "state": "PREEMPTED"}'],
  ['cancelled_preempted', 'spot_interruption', 'Node pool upgrade: draining node gke-pool-1-abc'],
  [
    'cancelled_preempted',
    'spot_interruption',
    'Received interruption notice for spot instance i-0abc; checkpointing',
  ],
  ['cancelled_preempted', 'spot_interruption', 'handling SIGUSR1, requeueing job'],
  // Run-time limits in every scheduler's words, jobs removed by a person or the scheduler, YARN's killed containers.
  ['cancelled_preempted', 'sigterm', 'Training job stopped: MaxRuntimeInSeconds exceeded'],
  [
    'cancelled_preempted',
    'sigterm',
    'Container killed by the ApplicationMaster. Container killed on request. Exit code is 143',
  ],
  [
    'cancelled_preempted',
    'sigterm',
    'Essential container in task exited. Status reason: Job attempt duration exceeded timeout',
  ],
  ['cancelled_preempted', 'sigterm', 'Execution was cancelled'],
  ['cancelled_preempted', 'sigterm', 'Job killed by the scheduler (walltime)'],
  ['cancelled_preempted', 'sigterm', 'exiting on signal 15'],
  ['cancelled_preempted', 'sigterm', 'worker 3 shutting down after signal SIGTERM'],
  ['cancelled_preempted', 'sigterm', 'Your job 1234 ("train") has been killed due to exceeding h_rt limit'],
  ['cancelled_preempted', 'sigterm', 'Your job was stopped because it exceeded the maximum run time'],
  ['cancelled_preempted', 'sigterm', 'qsub: job 123.pbs deleted by user'],
  ['cancelled_preempted', 'sigterm', 'Job 123 was removed by user'],
  ['cancelled_preempted', 'sigterm', 'condor_rm: Job 12.0 marked for removal'],
  ['cancelled_preempted', 'sigterm', 'Job was held. The job exceeded allowed execute duration'],
  ['cpu_oom_killed', 'sigkill', 'Process exited with exit code is 137'],
  // Set-up timeouts: any launcher waiting for its peers, a process group or store that timed out.
  [
    'distributed_timeout',
    'process_group_timeout',
    'paddle: Wait for trainers timeout, the current trainer count is 2',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    '[Hint]: Timeout waiting for all parallel workers connect',
  ],
  ['distributed_timeout', 'process_group_timeout', 'deepspeed.runtime.zero: timed out waiting for peers'],
  [
    'distributed_timeout',
    'process_group_timeout',
    'ERROR: KeyError during store get: timed out after 1800 seconds',
  ],
  ['distributed_timeout', 'process_group_timeout', 'init_process_group timed out after 1800 seconds'],
  [
    'distributed_timeout',
    'process_group_timeout',
    'accelerate: Timed out waiting for the other processes to reach wait_for_everyone',
  ],
  ['distributed_timeout', 'process_group_timeout', 'Process group init failed: timeout'],
  [
    'distributed_timeout',
    'process_group_timeout',
    'torch.distributed.DistError: The server socket has timed out while waiting for connections on (0.0.0.0, 29500)',
  ],
  ['distributed_timeout', 'process_group_timeout', 'mpi4py: MPI_Barrier timed out'],
  ['nccl_timeout', 'nccl_timeout', 'horovod.common.exceptions.HorovodInternalError: ncclAllReduce timed out'],
  // The network: TensorPipe, UCX, verbs, MPI runtimes and plain sentences about a dropped connection.
  ['communication', 'connection_lost', '[tensorpipe] pipe closed: EOF: end of file'],
  ['communication', 'connection_lost', 'UCX  ERROR  Remote access error on mlx5_0:1/IB'],
  [
    'communication',
    'connection_lost',
    '[1700000000.123] [node:1234:0] ib_iface.c:746 UCX ERROR ibv_create_ah(dlid=49152 sl=0 port=1) for RoCE failed: Invalid argument',
  ],
  ['communication', 'connection_lost', 'Error: EOF while reading from socket'],
  [
    'communication',
    'connection_lost',
    'MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD with errorcode 1: A process has lost its connection',
  ],
  ['communication', 'connection_lost', 'NCCL WARN NET/IB : ibv_poll_cq error '],
  [
    'communication',
    'connection_lost',
    'A process or daemon was unable to complete a TCP connection to another process',
  ],
  ['communication', 'connection_lost', 'The TCP connection between nodes was dropped'],
  // NCCL's siblings (RCCL, HCCL) and NCCL's proxy and bootstrap failures.
  ['nccl', 'nccl_error', 'RCCL error: unhandled system error'],
  ['nccl', 'nccl_error', 'HCCL error: ret code 7'],
  [
    'nccl',
    'nccl_error',
    'NCCL WARN [Proxy Service 0] Failed to execute operation Connect from rank 1, retcode 3',
  ],
  ['nccl', 'nccl_error', 'bootstrap.cc:45 NCCL WARN Bootstrap : no socket interface found'],
  // GPU memory in plain words, torch's allocation report without its first sentence, cuDNN finding no algorithm.
  ['oom', 'cuda_oom_other', 'ERROR: Out of GPU memory'],
  ['oom', 'cuda_oom_other', 'CUDA memory exhausted; try a smaller batch size'],
  [
    'oom',
    'cuda_oom_other',
    'RuntimeError: Tried to allocate 4.00 GiB (GPU 0; 23.65 GiB total capacity; 20.00 GiB already allocated)',
  ],
  ['oom', 'cuda_oom_other', 'RuntimeError: Unable to find a valid cuDNN algorithm to run convolution'],
  ['cpu_oom_killed', 'host_oom_kill', 'The instance was killed because it ran out of memory'],
  [
    'numerical_instability',
    'nan_detected',
    "ValueError: Input contains NaN, infinity or a value too large for dtype('float32').",
  ],
  ['gpu_xid', 'gpu_lost', 'dcgmi diag: Xid errors detected on GPU 3'],
  ['hang', 'watchdog_stuck', '[heartbeat] rank 3 has not sent a heartbeat in 600s'], // Second pass: more spellings of the same structures.
  [
    'cancelled_preempted',
    'slurm_job_state',
    'Slurm Job_id=123 Name=train Ended, Run time 2-00:00:10, TIMEOUT, ExitCode 0',
  ],
  ['cancelled_preempted', 'spot_interruption', 'SecondaryStatus: Interrupted'],
  ['cancelled_preempted', 'spot_interruption', 'pod "trainer-0" deleted'],
  ['cancelled_preempted', 'spot_interruption', 'PreemptionError: Nodes of this job got pre-empted.'],
  ['cancelled_preempted', 'spot_interruption', 'Event: ULOG_JOB_EVICTED for Condor Node train (5437648.0.0)'],
  ['cancelled_preempted', 'sigterm', 'User defined signal 1'],
  ['cancelled_preempted', 'sigterm', '2024/01/01 10:00:00 received signal terminated, shutting down'],
  ['cancelled_preempted', 'sigterm', 'failed       37  : qmaster enforced h_rt, h_cpu, or h_vmem limit'],
  ['numerical_instability', 'loss_not_finite', 'Loss has become NaN at step 300'],
  ['numerical_instability', 'loss_not_finite', 'loss value is nan'],
  ['numerical_instability', 'nan_detected', '    assert not torch.isnan(loss).any()\nAssertionError'],
  ['numerical_instability', 'nan_detected', 'RuntimeError: the model outputs contain NaN'],
  [
    'numerical_instability',
    'loss_table_nan',
    'Step      Train loss    Test loss\n0   [5.4e+03]  [6.4e+03]\n100  [nan]  [nan]\n200  [nan]  [nan]',
  ],
  [
    'oom',
    'cuda_oom_other',
    'torch.OutOfMemoryError: GPU 0 has a total capacity of 79.15 GiB of which 8.00 MiB is free. Including non-PyTorch memory',
  ],
  [
    'gpu_xid',
    'gpu_lost',
    'nvidia-nvswitch3: SXid (PCI:0000:c5:00.0): 24007, Fatal, Link 44 sourcetrack timeout error',
  ],
  [
    'gpu_xid',
    'gpu_lost',
    'NVRM: A GPU crash dump has been created. If possible, please run nvidia-bug-report.sh',
  ],
  ['gpu_xid', 'gpu_lost', 'HW Exception by GPU node-2 (Agent handle: 0x55) reason :GPU Hang'],
  ['gpu_xid', 'gpu_lost', 'RuntimeError: CUDA error: system not yet initialized'],
  [
    'distributed_timeout',
    'process_group_timeout',
    'RuntimeError: Timed out receiving the shared seed from the distributed store on Rank 2. (world_size=8, timeout=1800)',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'The backend setup (torch process group initialization) timed out after 30 seconds',
  ],
  ['communication', 'connection_lost', 'mlx5_core 0000:3b:00.0 ib0: Link is Down'],
  ['communication', 'connection_lost', 'pdsh@n1: n2: ssh exited with exit code 255'],
  [
    'communication',
    'connection_lost',
    'Exception raised from recvBytes at ../torch/csrc/distributed/c10d/Utils.hpp:672 (most recent call first):',
  ],
  [
    'nccl',
    'nccl_error',
    'INTERNAL: nccl_utils.cc:134: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled cuda error',
  ],
  ['disk_full', 'disk_full', 'Caused by:\n    There is not enough space on the disk. (os error 112)'],
  ['cpu_oom_killed', 'host_oom_kill', 'KernelRestarter: restarting kernel (1/5), keep random ports'], // Third pass: verbs plugins of other names, loky's exit codes, native waits of TensorFlow's and absl's locks.
  [
    'communication',
    'connection_lost',
    'NET/IBext : Got completion from peer 10.0.0.7<36315> with status=12 opcode=0 len=0 vendor err 129 (Send)',
  ],
  [
    'communication',
    'connection_lost',
    '[W tensorpipe_agent.cpp:641] RPC agent for w0 encountered error when sending outgoing request #0 to w1: ECONNREFUSED: connection refused',
  ],
  [
    'cpu_oom_killed',
    'sigkill',
    'joblib.externals.loky.process_executor.TerminatedWorkerError: The exit codes of the workers are {SIGKILL(-9)}',
  ],
  [
    'hang',
    'native_stack_waiting',
    '#0  0x00007f863dd73f09 in syscall () from /usr/lib/libc.so.6\n#1  0x00007f861d6f776d in nsync::nsync_mu_semaphore_p_with_deadline(nsync::nsync_semaphore_s_*, timespec) ()',
  ],
  [
    'deadlock',
    'gdb_mutex_wait',
    '#0  0x00007f74945842d5 in syscall () from /lib64/libc.so.6\n#1  0x00007f7494584305 in AbslInternalSpinLockDelay_lts_20240116 (w=0x7f74, value=9)',
  ],
  ['deadlock', 'deadlock', '>>> pool._inqueue._rlock\n<Lock(owner=SomeOtherProcess)>'],
  [
    'distributed_timeout',
    'process_group_timeout',
    'Traceback (most recent call last):\n  File "/opt/launcher/driver.py", line 40, in wait_for_workers_registration\n    raise Exception(msg)\nException',
  ],
  // Fourth pass: RDMA registration is no host OOM; allocations refused on a device; host OOM in notebook and cgroup words.
  ['nccl', 'nccl_error', 'NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory'],
  [
    'efa_fallback',
    'efa_plugin_unusable',
    'NCCL INFO NET/OFI Unable to find a protocol that worked. Failing initialization.',
  ],
  ['oom', 'cuda_oom_other', 'OOM: could not allocate 512 MiB on device 0'],
  ['oom', 'cuda_oom_other', 'RuntimeError: Not enough memory to allocate tensor on GPU'],
  ['cpu_oom_killed', 'host_oom_kill', 'The kernel appears to have died. It will restart automatically.'],
  ['cpu_oom_killed', 'host_oom_kill', 'kernel: Memory cgroup stats for /slurm/uid_1000/job_123'],
  ['cpu_oom_killed', 'host_oom_kill', 'Memory limit exceeded: job was killed'],
  ['cpu_oom_killed', 'host_oom_kill', '[ray] Worker killed due to OOM: task used 30GB, node limit 32GB'],
  ['cpu_oom_killed', 'sigkill', 'Killed                  python train.py --config cfg.yaml'],
  ['torch', 'torch_raised', 'ERROR: torch.compile failed: InductorError: CompilationError'],
];

// Look-alikes: settings, handlers, advice and counters that name the same words on a healthy run.
const HEALTHY: readonly string[] = [
  '#SBATCH --time=48:00:00 # the job is killed if it exceeds the time limit',
  'exceeding the time limit would kill the job',
  'Max runtime: 86400 seconds (MaxRuntimeInSeconds=86400)',
  'Preemption handler installed; will checkpoint on SIGTERM',
  'auto_requeue: True',
  'Lightning will requeue the job on SIGUSR1',
  'Spot interruption notice handler started',
  'Received rebalance recommendation event for instance i-0abc',
  'draining the dataloader queue',
  "init_process_group(backend='nccl', timeout=timedelta(seconds=1800))",
  '    self.init_process_group(backend, timeout, init_method)',
  'Waiting for workers to join (timeout=300s)',
  'rendezvous_timeout: 900',
  'store get completed after 3s (timeout 1800s)',
  'The client socket timeout is 600s',
  'Connection to wandb lost, reconnecting...',
  'Unable to establish connection to the metrics server; retrying in 5s',
  'Out of GPU memory? Try reducing the batch size.',
  'To avoid out of GPU memory errors, enable gradient checkpointing',
  'max_loss_scale: inf',
  "{'loss_scale': inf, 'loss': 1.23}",
  'No Xid errors detected',
  '0 Xid errors found',
  'NCCL INFO [Proxy Service] Device 0 CPU core 12, retcode 0',
  'nvidia-nvswitch3: SXid (PCI:0000:c5:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error',
  'loss value: 0.35',
  'status: RUNNING',
  'pod "trainer-0" created',
  '   id  age  score\n0   1  nan  nan\n1   2  nan  nan',
  'Step  loss\n0  2.31\n100  1.20',
  'Gradients are finite',
  'outputs are not nan',
  'pre-emption handler installed',
  'memory limit: 32GB per task',
  'Failed to allocate pinned host memory; falling back to pageable memory',
  '<Lock(owner=None)>',
  '[W socket.cpp:663] [c10d] The client socket has failed to connect to [node0]:29500 (errno: 111 - Connection refused).',
];

describe('classify: seventh blind round, failures as more software prints them', () => {
  itClassifiesEachRow(FAILURES);
});

describe('classify: seventh blind round, healthy look-alikes', () => {
  itStaysHealthy(HEALTHY);
});
