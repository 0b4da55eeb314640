import { describe, expect, it } from 'vitest';
import { classifyDetailed } from '../../../lambdas/core/classify/index.js';
import { itStaysHealthy } from '../../support/classifyRows.js';

// The structures a failure takes across loggers, launchers and versions, written from how the software prints
// them (synthetic lines, never corpus excerpts, never counted as accuracy), and the healthy look-alikes that
// must stay healthy. One row per variant: a signal that only knew one logger's phrasing fails a row here.
const FAILURES: readonly (readonly [string, string])[] = [
  // Non-finite values in metric lines of any logger.
  ['numerical_instability', "{'loss': nan, 'grad_norm': 12.1, 'learning_rate': 1e-05, 'epoch': 0.4}"],
  ['numerical_instability', "{'loss': 0.0, 'eval_loss': nan, 'epoch': 1.0}"],
  ['numerical_instability', 'Epoch 3:  42%|████▏     | 21/50 [00:04<00:05, 5.1it/s, loss=nan, v_num=3]'],
  ['numerical_instability', 'Epoch 0: 100%|██| 9/9 [00:02<00:00, train_loss_step=inf, val_acc=0.1]'],
  [
    'numerical_instability',
    ' iteration      200/  100000 | consumed samples: 1600 | lm loss: -nan | loss scale: 1.0 | grad norm: nan |',
  ],
  [
    'numerical_instability',
    '2024/01/01 10:00:00 - mmengine - INFO - Epoch(train)  [1][ 50/500]  loss: nan  loss_bbox: nan',
  ],
  ['numerical_instability', '| epoch 001:    100 / 2000 loss=nan, nll_loss=nan, ppl=nan, wps=1200'],
  ['numerical_instability', 'step: 120  loss: NaN  memory: 31.02GiB(39.2%)  tps: 4,120  mfu: 41.3%'],
  ['numerical_instability', '12/500 [====>.....] - ETA: 1:02 - loss: nan - accuracy: 0.0987'],
  ['numerical_instability', 'Train: 3 [ 250/1251 ( 20%)]  Loss: nan (nan)  Time: 0.412s'],
  ['numerical_instability', 'Loss is nan, stopping training'],
  ['numerical_instability', '|    train/loss           | nan          |'],
  ['numerical_instability', 'AssertionError: loss contains NaN at iteration 812'],
  ['numerical_instability', '12:00:01 | INFO | E6 iter[ 14/ 15] | [Loss] nan | [step] 104 |'],
  ['numerical_instability', 'Batch 1204: Invalid loss, terminating training'],
  ['numerical_instability', 'RuntimeError: Loss is not finite at step 300'],
  ['numerical_instability', 'train/loss=inf train/grad_norm=inf lr=0.0003'],
  ['numerical_instability', "{'train_loss': tensor(nan, device='cuda:0', grad_fn=<AddBackward0>)}"],
  [
    'numerical_instability',
    'FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding.',
  ],
  [
    'numerical_instability',
    '[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1',
  ],
  ['numerical_instability', 'Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 0.0'],
  [
    'numerical_instability',
    'NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: 0.5',
  ],
  // Signal 9, in every form a launcher reports it.
  ['cpu_oom_killed', 'Killed'],
  ['cpu_oom_killed', '/var/spool/slurmd/job123/slurm_script: line 14: 40211 Killed  python train.py'],
  ['cpu_oom_killed', '    exitcode  : -9 (pid: 1821)'],
  ['cpu_oom_killed', '  traceback : Signal 9 (SIGKILL) received by PID 1821'],
  [
    'cpu_oom_killed',
    "subprocess.CalledProcessError: Command '['python', 'train.py']' died with <Signals.SIGKILL: 9>.",
  ],
  [
    'cpu_oom_killed',
    "subprocess.CalledProcessError: Command '['/usr/bin/python', 'train.py']' returned non-zero exit status -9.",
  ],
  [
    'cpu_oom_killed',
    'torch.multiprocessing.spawn.ProcessExitedException: process 2 terminated with signal SIGKILL',
  ],
  ['cpu_oom_killed', '[ERROR] [launch.py:321:sigkill_handler] [...] exits with return code = -9'],
  ['cpu_oom_killed', '      Reason:       OOMKilled\n      Exit Code:    137'],
  [
    'cpu_oom_killed',
    'slurmstepd: error: Detected 1 oom-kill event(s) in StepId=4242.0. Some of your processes may have been killed by the cgroup out-of-memory handler.',
  ],
  ['cpu_oom_killed', 'slurmstepd: error: Job 4242 exceeded memory limit (81234567 > 80000000), being killed'],
  ['cpu_oom_killed', 'srun: error: node-7: task 3: Out Of Memory'],
  ['cpu_oom_killed', 'The actor died unexpectedly: the worker was killed by SIGKILL by the OOM killer'],
  ['cpu_oom_killed', 'zsh: killed     python train.py'],
  // Stopped from outside: schedulers, elastic agents, clouds.
  [
    'cancelled_preempted',
    'slurmstepd: error: *** JOB 4242 ON gpu-12 CANCELLED AT 2024-05-01T10:00:00 DUE TO TIME LIMIT ***',
  ],
  [
    'cancelled_preempted',
    'slurmstepd: error: *** STEP 4242.0 ON gpu-12 CANCELLED AT 2024-05-01T10:00:00 ***',
  ],
  [
    'cancelled_preempted',
    'torch.distributed.elastic.multiprocessing.api.SignalException: Process 777 got signal: 1',
  ],
  [
    'cancelled_preempted',
    'torch.distributed.elastic.multiprocessing.api.SignalException: Process 777 got signal: 2',
  ],
  ['cancelled_preempted', '[WARNING] Received Signals.SIGTERM death signal, shutting down workers'],
  ['cancelled_preempted', '[WARNING] Received Signals.SIGHUP death signal, shutting down workers'],
  ['cancelled_preempted', '    exitcode  : -15 (pid: 1821)'],
  ['cancelled_preempted', '4242         train        gpu      acct          8  PREEMPTED      0:0'],
  ['cancelled_preempted', 'JobId=4242 JobName=train JobState=TIMEOUT Reason=TimeLimit'],
  ['cancelled_preempted', 'srun: error: gpu-3: tasks 0-7: Terminated'],
  ['cancelled_preempted', 'torch.distributed.elastic.rendezvous.api.RendezvousClosedError'],
  // torchrun forwards the signal it received to its workers: SIGHUP or SIGINT came from outside.
  [
    'cancelled_preempted',
    'WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 12 closing signal SIGHUP',
  ],
  ['cancelled_preempted', '[rank: 0] Received SIGTERM: 15'],
  [
    'cancelled_preempted',
    'torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGTERM',
  ],
  ['cancelled_preempted', 'Received preemption notice from the metadata server; saving and exiting'],
  ['cancelled_preempted', '{"action": "terminate", "time": "2024-05-01T10:02:00Z"}'],
  // An eviction for another resource stays a stop; one for memory is the host's memory running out (the corpus's
  // evictions for node memory pressure are labelled cpu_oom_killed since corpus round 12).
  ['cancelled_preempted', 'Warning  Evicted  pod/trainer-0  The node was low on resource: pids.'],
  ['cpu_oom_killed', 'Warning  Evicted  pod/trainer-0  The node was low on resource: memory.'],
  ['cancelled_preempted', 'Pod was terminated in response to imminent node shutdown.'],
  ['cancelled_preempted', 'Status reason: Host EC2 (instance i-0abc123) terminated.'],
  // A full disk or quota, anywhere in a traceback.
  ['disk_full', "OSError: [Errno 28] No space left on device: '/ckpt/step_100'"],
  [
    'disk_full',
    'RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 2531234 vs 2531122',
  ],
  [
    'disk_full',
    'RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing central directory: file write failed',
  ],
  [
    'disk_full',
    'safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 28, kind: StorageFull, message: "No space left on device" })',
  ],
  [
    'disk_full',
    'OSError: Not enough disk space. Needed: 48.22 GiB (download: 12.1 GiB, generated: 36.1 GiB)',
  ],
  ['disk_full', "OSError: [Errno 122] Disk quota exceeded: '/home/u/.cache/huggingface'"],
  ['disk_full', 'write error: EDQUOT while writing shard'],
  [
    'disk_full',
    "FileNotFoundError: [Errno 2] No usable temporary directory found in ['/tmp', '/var/tmp', '/usr/tmp', '/work']",
  ],
  [
    'disk_full',
    "OSError: Can't write data (file write failed: time = Mon May  1, errno = 28, error message = 'x')",
  ],
  ['disk_full', 'trainer-0   ml-ws   Evicted   node-3   Pod The node had condition: [DiskPressure].'],
  ['disk_full', 'Warning  Evicted  pod/trainer-0  The node was low on resource: ephemeral-storage.'],
  ['disk_full', 'NCCL WARN Error: failed to extend /dev/shm/nccl-AbCdEf to 9637892 bytes'],
  // GPU hardware: Xid lines in every driver format, a GPU gone, CUDA errors that are the hardware's.
  ['gpu_xid', '[ 9912.1] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.'],
  ['gpu_xid', 'kernel: NVRM: Xid (0000:86:00): 74, pid=1, NVLink: fatal error detected on link 3'],
  [
    'gpu_xid',
    'NVRM: Xid (PCI:0000:b1:00.0): 119, pid=2201, name=python, Timeout after 6s of waiting for RPC',
  ],
  ['gpu_xid', '{"level":"error","msg":"critical xid","xid": 79, "device":"GPU-1"}'],
  ['gpu_xid', 'nvml: NVML_ERROR_GPU_IS_LOST on device 3'],
  [
    'gpu_xid',
    'NVRM: Xid (PCI:0000:3b:00): 13, pid=77, Graphics SM Warp Exception\nRuntimeError: CUDA error: unspecified launch failure',
  ],
  ['ecc_error', 'NVRM: Xid (PCI:0000:3b:00): 48, pid=1, DBE (double bit error) ECC error'],
  ['ecc_error', 'NVRM: Xid (PCI:0000:3b:00): 63, pid=1, Row Remapper: New row marked for remapping'],
  ['ecc_error', 'RuntimeError: CUDA error: uncorrectable ECC error encountered'],
  ['ecc_error', 'Health check failed: DCGM_FR_ROW_REMAP_FAILURE on GPU 2'],
  ['ecc_error', 'Health check failed: DCGM_FR_UNCORRECTABLE_ROW_REMAP on GPU 2'],
  // Process-group set-up and stores that time out.
  [
    'distributed_timeout',
    'torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.',
  ],
  [
    'distributed_timeout',
    'RuntimeError: Timed out initializing process group in store based barrier on rank: 3, for key: store_based_barrier_key:1',
  ],
  [
    'distributed_timeout',
    '[E socket.cpp:957] [c10d] The client socket has timed out after 1800s while trying to connect to (10.0.0.1, 29500).',
  ],
  [
    'distributed_timeout',
    "torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: wait timeout after 600000ms, keys: /default_pg/0//cuda//0",
  ],
  [
    'distributed_timeout',
    'RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete',
  ],
  ['distributed_timeout', 'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError'],
  ['distributed_timeout', 'RuntimeError: Rank 3 failed to pass monitoredBarrier in 1800000 ms'],
  [
    'distributed_timeout',
    'E client.cc:96] Coordination service agent in error status: DEADLINE_EXCEEDED: Deadline Exceeded',
  ],
  [
    'distributed_timeout',
    'jax.errors.JaxRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: PjRT_Client_Connect',
  ],
  // NCCL collectives that time out, by the watchdog or NCCL itself.
  [
    'watchdog_timeout',
    '[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800340 milliseconds before timing out.',
  ],
  [
    'nccl_timeout',
    '[PG 0 Rank 3] Timeout at NCCL work: 5021, last enqueued NCCL work: 5021, last completed NCCL work: 5020.',
  ],
  ['nccl_timeout', 'RuntimeError: NCCL communicator was aborted on rank 2.'],
  // Hangs with no error: watchdogs, heartbeats, stack dumps that sit in a collective.
  [
    'hang',
    '[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Heartbeat monitor timed out! Process will be terminated.',
  ],
  [
    'hang',
    "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives.",
  ],
  ['hang', 'WARNING: no progress for 30 minutes (last step 1200)'],
  ['hang', 'Training appears to be stuck at step 1200'],
  ['hang', 'watchdog: no heartbeat received for 600 seconds from rank 5'],
  [
    'hang',
    'Thread 5211 (active+gil): "MainThread"\n    barrier (/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py:3439)\n    main (train.py:88)',
  ],
  [
    'hang',
    'Thread 5211 (idle): "MainThread"\n    wrapper (torch/distributed/c10d_logger.py:75)\n    train_step (train.py:41)',
  ],
  [
    'hang',
    'Timeout (0:30:00)!\nThread 0x00007f3a (most recent call first):\n  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 2050 in all_reduce',
  ],
  [
    'hang',
    '(gdb) thread apply all bt\nThread 1 (Thread 0x7f (LWP 1)):\n#0  0x00007f in cudaStreamSynchronize () from libcudart.so.12\n#1  0x00007f in c10d::ProcessGroupNCCL::WorkNCCL::synchronizeInternal(std::chrono::duration<long, std::ratio<1l, 1000l> >) ()',
  ],
  [
    'hang',
    '#13 0x00001 in ?? () from libcudart.so.11.0\n#14 0x00001 in cudaMemcpyAsync () from libcudart.so.11.0',
  ],
  ['hang', '(gdb) info thread\n* 1    Thread 0x7 (LWP 8) "python" syscall () at syscall.S:38'],
  [
    'deadlock',
    'One or more tensors were submitted to be reduced by subset of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying to submit different tensors, which will cause deadlock.',
  ],
  // Deadlocks: DataLoader workers, a mutex nobody releases.
  [
    'deadlock',
    'Thread 100 (idle): "MainThread"\n    poll (multiprocessing/connection.py:424)\n    _try_get_data (/usr/local/lib/python3.10/site-packages/torch/utils/data/dataloader.py:1133)',
  ],
  [
    'deadlock',
    '(gdb) bt\n#0  __lll_lock_wait (futex=0x55d, private=0) at lowlevellock.c:52\n#1  0x00007f in __GI___pthread_mutex_lock (mutex=0x55d) at pthread_mutex_lock.c:80',
  ],
  ['deadlock', 'RuntimeError: DataLoader timed out after 600 seconds'],
  // GPU and host memory.
  ['oom', 'RuntimeError: CUDA driver error: out of memory'],
  ['oom', 'RuntimeError: cuda runtime error (2) : out of memory at THCCachingAllocator.cpp:510'],
  ['oom', 'RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED'],
  ['oom', 'ResourceExhaustedError: failed to allocate memory'],
  ['oom', 'ResourceExhaustedError: OOM when allocating tensor with shape[64,1024,1024]'],
  ['oom', 'torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)'],
  // Python errors behind a launcher's or a container runtime's line prefix.
  ['exception', '2024-05-01T10:00:00.123456789Z ValueError: expected 3 channels, got 4'],
  ['exception', "trainer-1  | KeyError: 'input_ids'"],
  ['exception', '[pod/trainer-worker-0/pytorch] AttributeError: module has no attribute x'],
  [
    'exception',
    "Could not override 'task.data'.\nKey 'data' is not in struct\n    full_key: task.data\n    object_type=dict",
  ],
  [
    'exception',
    'Error executing job.\nSet the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.',
  ],
  ['exception', 'gpu-node-07: RuntimeError: shape mismatch in custom op'],
];

// Healthy logs are full of scary words: metric names, NCCL INFO, warnings, counters at zero, retries that
// succeed. None of these may raise an error type.
const HEALTHY: readonly string[] = [
  "{'eval_error': 0.031, 'eval_loss': 0.412, 'epoch': 2.0}",
  "{'loss': 0.0, 'grad_norm': 0.97, 'learning_rate': 2e-05, 'epoch': 1.2}",
  'Epoch 2: 100%|██████████| 50/50 [00:10<00:00, loss=0.0312, v_num=1]',
  '   id  text                   label\n0   17  "the quick brown fox"  NaN\n1   18  "jumps over"           1.0',
  'dataset stats: rows=10000 nan_rows=0 inf_values=0',
  '  check_for_nan_in_loss_and_grad .................. True',
  '  loss_scale ...................................... None',
  ' iteration      100/  1000 | lm loss: 2.1E+00 | loss scale: 65536.0 | number of skipped iterations:   0 | number of nan iterations:   0 |',
  '[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768',
  'Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0',
  'host:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>',
  'host:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)',
  'host:1:1 [0] NCCL INFO comm 0x5 rank 0 nranks 16 cudaDev 0 busId 1000 - Init COMPLETE',
  '    XID errors: 0\n        Double Bit ECC Errors          : 0\n    Remapping Failure Occurred : No',
  '[W socket.cpp:601] [c10d] The client socket has failed to connect to [node-0]:29500 (errno: 111 - Connection refused). Retrying.',
  "WARNING:huggingface_hub.utils._http:'(ProtocolError('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer')), '(Request ID: 1)')' thrown while requesting HEAD https://huggingface.co/x/resolve/main/config.json\nRetrying in 1s [Retry 1/5].",
  'WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 8123 closing signal SIGTERM',
  'huggingface/tokenizers: The current process just got forked, after parallelism has already been used. Disabling parallelism to avoid deadlocks...',
  'Trainer: ddp_timeout=1800, save_total_limit=2, max_grad_norm=1.0',
  '[INFO] exits successfully.\n    exitcode  : 0 (pid: 1821)',
  'Disk usage: 412G used, 1.2T available on /ckpt',
  'SLURM auto-requeueing enabled. Setting signal handlers.',
  'Epoch(train)  [3][100/500]  lr: 1.0e-04  loss: 0.4112  loss_cls: 0.2101  grad_norm: 3.1',
  'val/loss_nan_count: 0  val/loss_inf_count: 0',
  'Memory cgroup stats: rss 12.1 GiB, limit 64 GiB',
  '|    train/loss           | 0.0412       |',
  'DeprecationWarning: This process (pid=4242) is multi-threaded, use of fork() may lead to deadlock in the child.',
  'RuntimeWarning: Using fork() can cause Polars to deadlock in the child process.',
  'eval_error: 0.031\ntrain_error: 0.018',
  '  DiskPressure     False   Mon, 01 May 2024   KubeletHasNoDiskPressure   kubelet has no disk pressure',
  '[0]\ttrain-error:0.04\ttest-error:0.05',
  '[rank1]:W1011 09:28:22.641 8812 socket.cpp:697] [c10d] The client socket has failed to connect to [h]:29500 (errno: 111 - Connection refused).',
  '[W1011 09:28:22.641402409 socket.cpp:697] [c10d] The client socket has failed to connect to [h]:29500 (errno: 111 - Connection refused).',
  'step 100 | loss 2.31 | grad_norm: inf | skipped',
  "{'loss': 1.2, 'learning_rate': 0.0, 'epoch': 0.0, 'total_flos': 0.0}",
  'spot price: 1.21 USD/h, interruption frequency <5%',
];

describe('signals read the structure of a failure, not one log phrase', () => {
  it.each(FAILURES.map(([type, text]) => [type, text.slice(0, 90), text] as const))(
    '%s: %s',
    (type, _, text) => {
      const d = classifyDetailed(text);
      expect([d.error_type, d.signal]).toEqual([type, expect.any(String)]);
    },
  );

  itStaysHealthy(HEALTHY);
});
