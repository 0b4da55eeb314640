import { describe } from 'vitest';
import {
  itClassifiesEachRow,
  itIsNoStall,
  itStaysHealthy,
  type SignalRow,
} from '../../support/classifyRows.js';

// More structures, second blind round: how stalls, stops from outside, transports, allocators and loggers print a
// failure, written from the software's formats (synthetic lines, never corpus excerpts, never counted as accuracy),
// each row naming the signal it exercises, and the healthy look-alikes each widened signal must leave alone.
const tb = (...frames: string[]) =>
  ['Traceback (most recent call last):', ...frames.map((f) => `  ${f}\n    pass`), 'KeyboardInterrupt'].join(
    '\n',
  );

const FAILURES: readonly SignalRow[] = [
  // Ctrl-C on a process that sat waiting: the frames say on what.
  [
    'hang',
    'interrupted_while_blocked',
    tb(
      'File "train.py", line 9, in <module>',
      'File "/usr/lib/python3.10/selectors.py", line 416, in select',
    ),
  ],
  [
    'hang',
    'interrupted_while_blocked',
    tb('File "t.py", line 3, in <module>', 'File "/x/torch/cuda/__init__.py", line 792, in synchronize'),
  ],
  [
    'hang',
    'interrupted_while_blocked',
    tb(
      'File "run.py", line 12, in <module>',
      'File "/usr/lib/python3.8/threading.py", line 1027, in _wait_for_tstate_lock',
    ),
  ],
  [
    'hang',
    'interrupted_while_blocked',
    tb('File "t.py", line 5, in <module>', 'File "/x/accelerate/state.py", line 370, in wait_for_everyone'),
  ],
  [
    'hang',
    'interrupted_while_blocked',
    tb(
      'File "w.py", line 20, in run',
      'File "/usr/lib/python3.10/multiprocessing/connection.py", line 384, in _recv',
    ),
  ],
  // faulthandler dumping the threads of a live process, a native stack parked in a wait primitive.
  [
    'hang',
    'faulthandler_dump',
    'Thread 0x00007f8b2b7fe700 (most recent call first):\n  File "/usr/lib/python3.10/threading.py", line 320 in wait',
  ],
  [
    'hang',
    'native_stack_waiting',
    '#0  0x00007f in pthread_cond_wait@@GLIBC_2.3.2 () from /lib64/libpthread.so.0\n#1  0x00007f in std::condition_variable::wait(std::unique_lock<std::mutex>&) () from libstdc++.so.6',
  ],
  [
    'hang',
    'native_stack_waiting',
    '#0  syscall () at syscall.S:38\n#1  0x00007f in absl::lts_2023::Mutex::AwaitCommon(absl::lts_2023::Condition const&) () from xla_extension.so',
  ],
  [
    'deadlock',
    'gdb_mutex_wait',
    '#0  __lll_lock_wait (futex=0x55d, private=0) at lowlevellock.c:52\n#1  0x00007f in __GI___pthread_mutex_lock (mutex=0x55d) at pthread_mutex_lock.c:80',
  ],
  // Progress monitors and heartbeats of every launcher; Kubernetes liveness.
  ['hang', 'hang_reported', 'Training has not made progress for 45 minutes. Last step: 1200'],
  ['hang', 'hang_reported', 'monitor: no output for over 2 hours from rank 3'],
  ['hang', 'hang_reported', 'The job hangs at the same step every time (step 5000)'],
  ['hang', 'hang_reported', 'training froze after epoch 2 and never resumed'],
  [
    'hang',
    'hang_reported',
    '  Warning  Unhealthy  3m  kubelet  Liveness probe failed: context deadline exceeded',
  ],
  ['hang', 'watchdog_stuck', 'elastic: worker group heartbeat timed out, restarting'],
  ['hang', 'watchdog_stuck', 'WARNING: missed 5 consecutive heartbeats from rank 7'],
  // Stopped from outside, in each scheduler's and cloud's spelling.
  [
    'cancelled_preempted',
    'slurm_job_state',
    '12345             train        gpu       acct   64    TIMEOUT      0:0',
  ],
  [
    'cancelled_preempted',
    'slurm_job_state',
    '12345.batch       batch             acct         64  CANCELLED     0:15',
  ],
  [
    'cancelled_preempted',
    'slurm_job_state',
    'slurmstepd: error: *** JOB 77 STEPD TERMINATED ON n3 AT 2024-01-01T00:00:00 DUE TO JOB NOT ENDING WITH SIGNALS ***',
  ],
  [
    'cancelled_preempted',
    'spot_interruption',
    '{"Events":[{"EventId":"x","EventType":"Preempt","ResourceType":"VirtualMachine"}]}',
  ],
  [
    'cancelled_preempted',
    'spot_interruption',
    '  Normal   Preempting  2m   default-scheduler  Preempting pod trainer-0',
  ],
  ['cancelled_preempted', 'spot_interruption', '[rank: 0] Handling auto-requeue signal: 10'],
  ['cancelled_preempted', 'spot_interruption', 'srun: error: Node failure on gpu-3'],
  ['cancelled_preempted', 'spot_interruption', 'Instance i-0abc is scheduled for termination at 10:02'],
  ['cancelled_preempted', 'sigterm', 'Caught SIGTERM, saving checkpoint and exiting'],
  ['cancelled_preempted', 'sigterm', 'INFO: Signal handler called with signal 15'],
  ['cancelled_preempted', 'sigterm', 'Job 1234 was cancelled by user'],
  ['cancelled_preempted', 'sigterm', '=>> PBS: job killed: walltime 86410 exceeded limit 86400'],
  ['cancelled_preempted', 'sigterm', 'TERM_RUNLIMIT: job killed after reaching LSF run time limit.'],
  ['cancelled_preempted', 'sigterm', 'FailureReason: MaxRuntimeExceeded'],
  [
    'cancelled_preempted',
    'sigterm',
    '  Normal   Killing    5m    kubelet            Stopping container pytorch',
  ],
  ['cpu_oom_killed', 'sigkill', 'Process exited with code -9'],
  ['cpu_oom_killed', 'sigkill', 'worker 3 died with signal 9'],
  ['cpu_oom_killed', 'host_oom_kill', 'The training process was OOM killed'],
  ['gpu_xid', 'gpu_lost', 'dcgmi health: DCGM_FR_XID_ERROR detected on GPU 2'],
  // The network under NCCL and Gloo, across transports.
  [
    'communication',
    'connection_lost',
    'h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<5> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0)',
  ],
  [
    'communication',
    'connection_lost',
    'h:1:2 [0] transport/net_ib.cc:80 NCCL WARN NET/IB : Got async event : port error',
  ],
  [
    'communication',
    'connection_lost',
    'h:1:2 [0] NCCL WARN NET/IB : Got async event : local catastrophic error',
  ],
  ['communication', 'connection_lost', 'h:1:2 [0] NCCL WARN NET/Socket : socket progress error'],
  [
    'communication',
    'connection_lost',
    'libfabric:1:efa:ep_ctrl:rxr_cq_handle_error():421<warn> fi_cq_readerr: err: Input/output error (-5), prov_err: Remote unreachable (13)',
  ],
  [
    'communication',
    'connection_lost',
    'h:1:2 [0] NCCL WARN NET/OFI Request 0x7f completed with error. RC: 5. Error: Unreachable remote',
  ],
  ['communication', 'connection_lost', 'ERROR: failed to connect to 10.0.0.5:29500: Connection timed out'],
  [
    'nccl',
    'nccl_error',
    'h:1:1 [0] init.cc:1080 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000',
  ],
  [
    'nccl',
    'nccl_error',
    'h:1:1 [0] proxy.cc:1495 NCCL WARN [Service thread] Error encountered progressing operation=Connect, res=3, closing connection',
  ],
  [
    'nccl',
    'nccl_error',
    'nccl_utils.cc:305: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: internal error',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    '[W socket.cpp:487] [c10d] waitForInput: socket SocketImpl(fd=3) timed out after 1800000ms',
  ],
  ['efa_fallback', 'efa_plugin_unusable', 'h:1:1 [0] NCCL INFO NET/OFI No eligible providers were found'],
  [
    'efa_fallback',
    'efa_plugin_unusable',
    "libfabric:123:core:core:fi_getinfo_():1234<warn> Can't find provider with the name efa",
  ],
  // GPU memory in every framework; host memory as the kernel, Ray and numpy report it.
  [
    'oom',
    'cuda_oom_other',
    'W bfc_allocator.cc:485] Allocator (GPU_0_bfc) ran out of memory trying to allocate 16.00GiB (rounded to 17179869184)',
  ],
  [
    'oom',
    'cuda_oom_other',
    'E rocm_driver.cc:601] failed to allocate 7.35G (7889485824 bytes) from device: hipError_t(1002)',
  ],
  ['oom', 'cuda_oom_other', 'RuntimeError: Triton Error [CUDA]: out of memory'],
  ['oom', 'cuda_oom_other', 'RuntimeError: HIP error: out of memory'],
  [
    'oom',
    'cuda_oom_other',
    'ValueError: Not enough GPU memory to run this model (required 45 GiB, available 40 GiB)',
  ],
  [
    'cpu_oom_killed',
    'host_oom_kill',
    '[12345.6] Killed process 4242 (python) total-vm:123456kB, anon-rss:123456kB',
  ],
  ['cpu_oom_killed', 'host_oom_kill', 'kernel: oom_reaper: reaped process 4242 (python), now anon-rss:0kB'],
  [
    'cpu_oom_killed',
    'host_oom_kill',
    'Memory on the node was 30.2GB / 31.3GB. Ray killed this worker (ID: abc) because it was the most recently scheduled task',
  ],
  [
    'cpu_oom_killed',
    'host_alloc_failed',
    'numpy.core._exceptions._ArrayMemoryError: Unable to allocate 12.3 GiB for an array with shape (1, 2)',
  ],
  ['cpu_oom_killed', 'sigkill', '已杀死'],
  ['cpu_oom_killed', 'sigkill', '強制終了'],
  // Disks that fill, however the writer says it; ECC counters above zero.
  ['disk_full', 'disk_full', 'wandb: ERROR Error uploading: disk full'],
  ['disk_full', 'disk_full', '/dev/nvme0n1  1.8T  1.8T     0 100% /'],
  ['disk_full', 'checkpoint_write_failed', 'RuntimeError: write(): fd 29 failed with Input/output error'],
  ['ecc_error', 'gpu_ecc_uncorrectable', '        DRAM Uncorrectable            : 3'],
  ['ecc_error', 'gpu_ecc_uncorrectable', 'cuCtxSynchronize failed: CUDA_ERROR_ECC_UNCORRECTABLE'],
  // Non-finite numbers in more loggers and scalers.
  [
    'numerical_instability',
    'loss_not_finite',
    '2022-12-08 17:57:32,672-INFO: Total iter: 10, epoch: 0, batch: 10, loss: [nan]',
  ],
  ['numerical_instability', 'loss_not_finite', "{'loss': array(nan, dtype=float32)}"],
  [
    'numerical_instability',
    'loss_scale_minimum',
    '[INFO] [logging.py:96:log_dist] [Rank 0] Overflow detected. Skipping step. Attempted loss scale: 1.0, reducing to 1.0',
  ],
  [
    'numerical_instability',
    'grads_not_finite_repeated',
    'WARNING: found inf or nan in gradients at step 10\nWARNING: found inf or nan in gradients at step 11\nWARNING: found inf or nan in gradients at step 12',
  ],
  [
    'numerical_instability',
    'nan_detected',
    'InvalidArgumentError: Found Inf or NaN global norm. : Tensor had NaN values',
  ],
  ['exception', 'training_refused', 'train: No labels found in /data/train.cache, can not start training.'],
  // Third blind round: more spellings of the same structures.
  ['cpu_oom_killed', 'sigkill', 'srun: error: node01: task 0: Killed'],
  ['cpu_oom_killed', 'sigkill', 'supervisor: process 1234 exited with signal 9'],
  ['cpu_oom_killed', 'sigkill', 'Process finished with exit code 137 (interrupted by signal 9: SIGKILL)'],
  ['cpu_oom_killed', 'host_oom_kill', 'slurmstepd: error: Exceeded step memory limit at some point.'],
  [
    'cpu_oom_killed',
    'host_alloc_failed',
    "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc",
  ],
  ['cpu_oom_killed', 'host_alloc_failed', 'OSError: [Errno 12] Not enough memory'],
  ['cancelled_preempted', 'spot_interruption', 'Disconnected: node gke-pool-1-abc preempted'],
  ['cancelled_preempted', 'spot_interruption', 'TPU preempted, restarting from the last checkpoint'],
  ['cancelled_preempted', 'spot_interruption', 'The job was stopped because the Spot capacity was reclaimed'],
  ['cancelled_preempted', 'spot_interruption', '    Reason:   PreemptionByScheduler'],
  ['cancelled_preempted', 'spot_interruption', '    Reason:   TerminationByKubelet'],
  ['cancelled_preempted', 'sigterm', 'Job 123 exceeded walltime limit'],
  ['cancelled_preempted', 'sigterm', 'WARNING: Received signal 15, terminating'],
  [
    'cancelled_preempted',
    'sigterm',
    'slurmstepd: error: *** STEP 9.1 ON n1 CANCELLED AT 2025-01-01T00:00:00 ***\nsrun: error: n1: task 0: Killed',
  ],
  ['disk_full', 'disk_full', 'sbatch: error: You have exceeded your disk quota on /home'],
  ['disk_full', 'disk_full', 'mkdir: cannot create directory: no free inodes (out of inodes)'],
  ['disk_full', 'disk_full', "E: You don't have enough free space in /var/cache/apt/archives/."],
  ['hang', 'hang_reported', 'The job has been stuck for 2 hours with no output'],
  ['hang', 'hang_reported', 'rank 3 hangs in all_reduce after the first epoch'],
  ['hang', 'hang_reported', 'training freezes during validation'],
  [
    'hang',
    'interrupted_in_collective',
    '^CTraceback (most recent call last):\n  File "t.py", line 3, in <module>\n    dist.barrier()\n  File "/x/torch/distributed/c10d_logger.py", line 72, in wrapper\n    return func(*args, **kwargs)\nKeyboardInterrupt',
  ],
  [
    'hang',
    'blocked_stack_without_exception',
    '  File "train.py", line 115, in train\n    for batch in val_loader:\n  File "/x/torch/utils/data/dataloader.py", line 1310, in _try_get_data\n    data = self._data_queue.get(timeout=timeout)',
  ],
  [
    'hang',
    'blocked_stack_without_exception',
    '  File "/usr/lib/python3.10/multiprocessing/process.py", line 108, in run\n  File "/usr/lib/python3.10/multiprocessing/queues.py", line 102, in get\n    with self._rlock:',
  ],
  ['distributed_timeout', 'process_group_timeout', 'RuntimeError: monitoredBarrier timed out after 1800 s'],
  [
    'distributed_timeout',
    'process_group_timeout',
    'RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Application timeout caused pair closure',
  ],
  ['communication', 'connection_lost', '[1700000000.1] ucp_worker.c:1234 UCX  ERROR   Endpoint timeout'],
  ['communication', 'connection_lost', 'mlx5: gpu-node-3: got completion with error:'],
  [
    'communication',
    'connection_lost',
    'grpc._channel._InactiveRpcError: status = StatusCode.UNAVAILABLE details = "failed to connect to all addresses"',
  ],
  [
    'efa_fallback',
    'nccl_socket_fallback',
    'h:1:1 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.\nFI_EFA_USE_DEVICE_RDMA=1',
  ],
  [
    'numerical_instability',
    'nan_detected',
    'InvalidArgumentError: Nan in summary histogram for: dense/kernel_0',
  ],
  ['numerical_instability', 'nan_detected', 'Epoch 00005: val_loss did not improve from inf'],
  // Ctrl-C: a stop from outside, unless the stacks printed on the way out sit in a wait (then a stuck job was stopped).
  [
    'cancelled_preempted',
    'sigint',
    'WARNING:torch.distributed.elastic.agent.server.api:Received 2 death signal, shutting down workers',
  ],
  [
    'cancelled_preempted',
    'sigint',
    'W0101 torch/distributed/elastic/multiprocessing/api.py] Sending process 12 closing signal SIGINT',
  ],
  ['cancelled_preempted', 'sigint', '[rank: 0] Received SIGINT, saving a checkpoint and exiting'],
  [
    'cancelled_preempted',
    'sigint',
    'Received 2 death signal, shutting down workers\nTraceback (most recent call last):\n  File "/x/torch/distributed/elastic/agent/server/api.py", line 850, in _invoke_run\n    time.sleep(monitor_interval)\n  File "/x/torch/distributed/elastic/multiprocessing/api.py", line 62, in _terminate_process_handler\n    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)',
  ],
  [
    'hang',
    'blocked_stack_without_exception',
    'Received 2 death signal, shutting down workers\nTraceback (most recent call last):\n  File "train.py", line 241, in train\n    batch = next(self.dl)\n  File "/x/torch/utils/data/dataloader.py", line 1132, in _try_get_data\n    data = self._data_queue.get(timeout=timeout)',
  ],
  // Collective libraries aborting a communicator on a timeout; transports and MPI runtimes losing a peer.
  [
    'nccl_timeout',
    'nccl_timeout',
    'Exception: comm aborted due to timeout, rank: 0, desc: waitRequest for peer 3',
  ],
  ['nccl_timeout', 'nccl_timeout', 'RCCL: communicator was aborted after a timeout on rank 2'],
  ['communication', 'connection_lost', 'ORTE has lost communication with its daemon located on node:'],
  ['communication', 'connection_lost', 'PRTE has lost communication with a remote daemon.'],
  [
    'communication',
    'connection_lost',
    'error: commlib error: got read error (closing "node-7/shepherd_ijs/1")',
  ],
  // TensorFlow reports ENOSPC as RESOURCE_EXHAUSTED naming the file; a GIL waiter in a dump is a lock inversion.
  [
    'disk_full',
    'disk_full',
    'InternalError: Error writing (tmp) checkpoint file: /ckpt/model.ckpt-6.tempstate97: Resource exhausted: /ckpt/model.ckpt-6.tempstate97',
  ],
  [
    'deadlock',
    'waiting_for_gil',
    'Thread 1 Python stack\n  Waiting for the GIL\n  File "/x/rpc/api.py", line 719, in _invoke_rpc',
  ],
];

// Not stalls: Ctrl-C in the middle of compute is no wait, a launcher waiting on its children is no stall, and a
// crash's stacks (a fatal signal) are a crash. Whatever else they are, no hang or deadlock signal may match them.
const NOT_STALLS: readonly string[] = [
  '  File "/x/y.py", line 3, in <module>\n  File "/x/queue.py", line 9, in get\nValueError: bad key',
  tb('File "train.py", line 50, in <module>', 'File "/x/torch/_tensor.py", line 522, in backward'),
  tb(
    'File "/x/deepspeed/launcher/runner.py", line 556, in main',
    'File "/usr/lib/python3.8/subprocess.py", line 1083, in wait',
  ),
  '#0  0x00007f in pthread_cond_wait () from libpthread.so.0\nThread 1 "python" received signal SIGSEGV, Segmentation fault.',
  'Fatal Python error: Segmentation fault\n\nThread 0x00007f3a (most recent call first):\n  File "x.py", line 3 in f',
];

const HEALTHY: readonly string[] = [
  '  File "/usr/lib/python3.10/threading.py", line 320, in wait',
  'dump_traceback_later enabled: faulthandler will print stacks if a step takes longer than 30 min',
  'watchdog: abort the run if no progress for 1800 s (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC=600)',
  'INFO: no output for 30 seconds is normal during dataset preprocessing',
  '  Liveness:   http-get http://:8080/healthz delay=10s timeout=1s period=10s #success=1 #failure=3',
  'heartbeat: step=100 ok; heartbeat sent to monitor (interval 30 s)',
  '(raylet) node 10.0.0.1 has been marked dead because the detector has missed too many heartbeats from it',
  '12345             train        gpu       acct         64  COMPLETED      0:0',
  '[rank: 0] Requeue disabled (auto_requeue=False)',
  'h:1:1 [0] NCCL INFO NET/IB : No device found.\nh:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>',
  '[0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]',
  'h:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa (found 32 nics)',
  "WARNING:urllib3.connectionpool:Retrying (Retry(total=4)) after connection broken by 'ConnectTimeoutError(... Connection timed out)'",
  'wandb: Connection timed out; retrying in 2 s',
  'W bfc_allocator.cc:296] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.26GiB with freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could be performance gains if more memory were available.',
  'Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1    1.8T  900G  900G  50% /\ntmpfs            64M     0   64M   0% /dev/shm',
  'checking disk space: the disk is not full (120G free)',
  '        DRAM Uncorrectable            : 0\n        Uncorrectable Error           : 0\n        Pending                       : No',
  '[Rank 0] Overflow detected. Skipping step. Attempted loss scale: 65536.0, reducing to 32768.0',
  '[Rank 0] Overflow detected. Skipping step. Attempted loss scale: 16.0, reducing to 8.0',
  '[rank0]: WARNING: skipped 1 step due to inf in gradients (fp16 warm-up)\nstep 101 loss 3.21',
  'grad_norm: 0.98 | nan_count: 0 | inf_in_grads: 0',
  "{'loss': [0.52, 0.41], 'eval_loss': 0.4}",
  'Killed processes: 0',
  'SLURM auto-requeueing enabled. Setting signal handlers.\nRegistered handler for SIGTERM',
  '  Normal   Pulling    5m    kubelet            Pulling image "trainer:latest"',
  'Resuming training from checkpoint-500; could not find optimizer state, starting fresh',
  // Third blind round: look-alikes of the widened signals.
  'Node pool autoscaling: no nodes preempted in the last hour',
  'checking whether the node was preempted ... no',
  'spot interruption handler installed',
  'Epoch 00001: val_loss improved from inf to 0.51234, saving model to best.h5',
  'quota exceeded for API requests; retrying in 60 s (rate limit)',
  'job time limit: 48:00:00; checkpoint before the time limit is reached',
  'h:1:1 [0] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v6 symbol.',
  'h:1:1 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.',
  'UCX  WARN  unexpected tag-receive descriptor',
  'kill -9 is never sent by this launcher; SIGKILL handling: none',
  'waiting for 5 seconds before the next poll',
  'Registered handlers for SIGINT and SIGTERM',
  'ResourceExhausted retries: 0 (quota resets hourly)',
  'communicator abort on timeout: enabled (TORCH_NCCL_ASYNC_ERROR_HANDLING=1)',
  'reconnected to peer 10.0.0.2 after a lost connection; retrying',
  'py-spy: sampling thread 1; GIL held 35% of the time',
];

describe('signals read the structure of a failure in more formats (second round)', () => {
  itClassifiesEachRow(FAILURES);

  itIsNoStall('is no stall', NOT_STALLS); // failures (a KeyboardInterrupt, a crash), only not stalls

  itStaysHealthy(HEALTHY);
});
