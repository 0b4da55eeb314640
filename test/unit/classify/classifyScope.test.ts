import { describe } from 'vitest';
import { itClassifiesEachRow, itStaysHealthy, type SignalRow } from '../../support/classifyRows.js';

// Eighth blind round: mechanisms rather than products. How any program says it was stopped from outside (a
// termination signal named in the receiver's word order, a wall-clock limit reached in any phrasing, a machine taken
// for maintenance or shut down), how any launcher says set-up timed out (a handshake or bootstrap near a timeout, a
// connect loop to the master that gave up), how any monitor names a GPU fault, how any watchdog says a step never
// finished. Synthetic lines written from how such software prints, never corpus excerpts, never counted as accuracy;
// each row names the signal it exercises.
const FAILURES: readonly SignalRow[] = [
  // A termination signal, received or forwarded, in any word order.
  ['cancelled_preempted', 'stop_signal_or_limit', 'signal 15 received, terminating'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'TERM signal received, stopping workers'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'INFO [supervisor] SIGHUP signal caught, shutting down'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'Terminated: 15'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'child 4242 exited, signal=SIGTERM'],
  [
    'cancelled_preempted',
    'stop_signal_or_limit',
    'trainer.service: Main process exited, code=killed, signal=TERM',
  ],
  ['cancelled_preempted', 'stop_signal_or_limit', '  State: Terminated\n  ExitCode: 143'],
  // A wall-clock limit reached, in any phrasing.
  ['cancelled_preempted', 'stop_signal_or_limit', 'Job reached its time limit and was terminated'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'Time limit reached, exiting'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'Execution halted: maximum runtime reached'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'Job cancelled due to time limit'],
  [
    'cancelled_preempted',
    'stop_signal_or_limit',
    'Your job has been terminated because it reached the wall time',
  ],
  ['cancelled_preempted', 'stop_signal_or_limit', 'The training job ran out of wall time at step 41000'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'task killed after reaching the requested time limit'],
  ['cancelled_preempted', 'slurm_job_state', '*** STEP 991.0 DUE TO TIME LIMIT ***'],
  // A machine taken away for maintenance or shut down under the job.
  ['cancelled_preempted', 'spot_interruption', 'The TPU VM was interrupted by a maintenance event'],
  ['cancelled_preempted', 'spot_interruption', 'Compute instance terminated: host maintenance'],
  [
    'cancelled_preempted',
    'spot_interruption',
    'WARNING: the instance is scheduled for maintenance and will be terminated at 12:00 UTC',
  ],
  ['cancelled_preempted', 'spot_interruption', 'Node gpu-17 was shut down, job terminated'],
  ['cancelled_preempted', 'spot_interruption', 'host worker-3 is powering off'],
  // Set-up timeouts: a handshake, bootstrap or coordinator near a timeout; a connect loop that gave up.
  ['distributed_timeout', 'process_group_timeout', 'MPI handshake timed out'],
  ['distributed_timeout', 'process_group_timeout', 'bootstrap timeout after 60s'],
  ['distributed_timeout', 'process_group_timeout', 'registration with coordinator deadline exceeded'],
  ['distributed_timeout', 'process_group_timeout', 'Gloo connectFullMesh failed with timeout'],
  ['distributed_timeout', 'process_group_timeout', 'Deadline exceeded while waiting for peers'],
  [
    'distributed_timeout',
    'process_group_timeout',
    'gave up waiting for the remaining workers (3 of 4 joined)',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'ERROR: could not reach the master at 10.0.0.1:29500, giving up after 10 attempts',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'Failed to connect to coordinator at 10.0.0.1:1234 after 30 retries',
  ],
  ['distributed_timeout', 'process_group_timeout', 'giving up connecting to the store 10.0.0.1:29400'],
  [
    'distributed_timeout',
    'process_group_timeout',
    'RuntimeError: Rank 0 timed out in monitoredBarrier after 1800 seconds',
  ],
  // GPU faults in a driver's, a fabric's, a device plugin's or a monitor's words.
  [
    'gpu_xid',
    'gpu_lost',
    'nvidia 0000:3b:00.0: AER: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer',
  ],
  ['gpu_xid', 'gpu_lost', '| N/A   ERR!  P0   ERR! / 400W |   0MiB / 81920MiB |     ERR!      Default |'],
  ['gpu_xid', 'gpu_lost', 'fabricmanager: NVSwitch fatal error detected on switch 2'],
  ['gpu_xid', 'gpu_lost', 'device plugin: marking GPU-7540a9b3 as unhealthy'],
  ['gpu_xid', 'gpu_lost', 'dcgmi diag: GPU 3 failed health check: PCIe replay rate exceeded'],
  ['gpu_xid', 'gpu_lost', 'node-problem-detector: health check failed on GPU 5'],
  // A step that never finished, an expired step timer, a worker not responding.
  ['hang', 'progress_not_advancing', 'WARNING: step 500 has not completed after 3600 s'],
  ['hang', 'progress_not_advancing', 'collective 17 did not finish within 30 min'],
  ['hang', 'progress_not_advancing', 'timed out waiting for the next step'],
  ['hang', 'progress_not_advancing', 'Reaping worker_id=[4242]. Expired timers: [train_step]'],
  ['hang', 'progress_not_advancing', 'trainer process 3 is not responding'],
  // A non-finite loss inside another framework's tensor repr; a GPU that ran out of memory in plain words.
  ['numerical_instability', 'loss_not_finite', 'step 5 loss=tf.Tensor(nan, shape=(), dtype=float32)'],
  ['numerical_instability', 'loss_not_finite', 'loss: DeviceArray(nan, dtype=float32)'],
  ['oom', 'cuda_oom_other', 'the GPU ran out of memory while building the KV cache'],
  // Non-finite losses under other names or with a qualifier; a forward check finding nan in a layer's output.
  ['numerical_instability', 'loss_not_finite', 'Loss (total): nan'],
  ['numerical_instability', 'loss_not_finite', 'epoch 4 | mse: nan - mae: nan'],
  ['numerical_instability', 'loss_not_finite', '[trial 3] objective: nan'],
  ['numerical_instability', 'nan_detected', 'RuntimeError: Found NaN in the output of layer 12'],
  ['numerical_instability', 'nan_detected', 'assert failed: hidden_states contains nan at block 7'],
  // A connect loop to a peer or the master that never ends, in any launcher's words (eight failures, no success).
  [
    'distributed_timeout',
    'connect_retry_repeated',
    Array.from(
      { length: 8 },
      (_, i) => `[W] connecting to worker ${i % 3} failed, backing off ${100 * i} ms`,
    ).join('\n'),
  ],
  [
    'distributed_timeout',
    'connect_retry_repeated',
    Array.from(
      { length: 9 },
      () =>
        '[W socket.cpp:663] The client socket has failed to connect to [trainer-0.svc]:29500 (errno: 113).',
    ).join('\n'),
  ],
  // A collective library's socket layer timing out inside a raised error; torch's older collective timeout wording.
  [
    'distributed_timeout',
    'process_group_timeout',
    'CollectiveError: [12:00:01] src/net/socket.h:170: Poll timeout',
  ],
  [
    'watchdog_timeout',
    'nccl_watchdog_timeout',
    'RuntimeError: [Rank 1] Caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800321 milliseconds before timing out.',
  ],
  // A socket operation failing with its own error; a driver status asking for a GPU reset; AWS Batch's short reason.
  ['communication', 'connection_lost', '[Fatal] Socket send error, code: 32'],
  [
    'gpu_xid',
    'gpu_lost',
    'NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED]',
  ],
  ['cancelled_preempted', 'spot_interruption', 'Status Reason: Host EC2 terminated'],
  // Stops in more receivers' words: a negative return code of 15, a handler's "signal received: SIGTERM", a stop
  // done by hand, a node rebooted, spot capacity reclaimed, EC2's instance-action, a pod deleted under the job.
  ['cancelled_preempted', 'stop_signal_or_limit', 'Process 1234 exited with code -15'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'Signal received: SIGTERM'],
  ['cancelled_preempted', 'stop_signal_or_limit', 'The experiment was stopped manually'],
  [
    'cancelled_preempted',
    'spot_interruption',
    'The job was terminated by the system because the node was rebooted',
  ],
  ['cancelled_preempted', 'spot_interruption', 'Instance terminated by AWS due to capacity'],
  ['cancelled_preempted', 'spot_interruption', 'instance-action: terminate'],
  ['cancelled_preempted', 'spot_interruption', 'kubelet: Pod trainer-0 was deleted'],
  // A debugger's report of an exception; NCCL's error trace in its older CUDA sources; EAGAIN on a connect or recv;
  // a wait for something to go idle or drain, repeated.
  [
    'exception',
    'python_exception',
    'Exception has occurred: ParserError\nexpected <block end>, but found <scalar>',
  ],
  [
    'nccl',
    'nccl_error_trace',
    'host:12:13 [0] NCCL INFO transport.cu:165 -> 2\nhost:12:13 [0] NCCL INFO init.cu:642 -> 2',
  ],
  [
    'communication',
    'connection_lost',
    '[E agent.cpp:401] request #3 to worker 0 failed: connect: Resource temporarily unavailable',
  ],
  [
    'hang',
    'waiting_repeated',
    Array.from({ length: 6 }, () => 'I0101 00:00:00 pool.cc:88] waiting for executor threads to drain').join(
      '\n',
    ),
  ],
  // A lock cycle named by any detector; a connection said to be lost in either word order.
  ['deadlock', 'deadlock', 'WARNING: possible circular locking dependency detected'],
  ['deadlock', 'deadlock', 'ThreadSanitizer: lock-order-inversion (potential cycle) in thread T3'],
  ['deadlock', 'deadlock', 'All threads are blocked waiting for each other'],
  ['deadlock', 'deadlock', 'DataLoader worker (pid 123) is stuck waiting on a lock held by the main thread'],
  ['communication', 'connection_lost', 'Connection to 10.0.0.2:29500 lost'],
  ['communication', 'connection_lost', 'RuntimeError: Connection lost to peer rank 3'],
  ['communication', 'connection_lost', 'The actor died unexpectedly: Lost connection to the raylet'],
  // Peers that never joined set-up, said by whoever waited.
  ['distributed_timeout', 'peers_never_joined', 'Worker 2 did not check in within 300 seconds'],
  ['distributed_timeout', 'peers_never_joined', 'Only 3 of 4 hosts joined within the timeout'],
  [
    'distributed_timeout',
    'peers_never_joined',
    'The coordinator did not receive a response from 1 task(s) within 60s',
  ],
  ['distributed_timeout', 'peers_never_joined', 'ERROR: Rank 3 never joined the process group'],
  ['distributed_timeout', 'peers_never_joined', 'mpirun: timeout waiting for daemons to report back'],
  [
    'distributed_timeout',
    'peers_never_joined',
    'RuntimeError: Timed out waiting for distributed JAX coordinator',
  ],
  ['distributed_timeout', 'peers_never_joined', 'jax.distributed.initialize() timed out after 300 seconds'],
  [
    'distributed_timeout',
    'peers_never_joined',
    'torch.distributed.DistError: wait timed out after 1800 seconds for keys [rank_3]',
  ],
];

// Look-alikes of every widened shape: configured limits, handlers installed, a connect loop still retrying, a
// handshake that completed, health that passed, counters at zero, steps that finished.
const HEALTHY: readonly string[] = [
  '#SBATCH --time=24:00:00\ntime limit: 24:00:00, checkpoint every 1000 steps',
  'Setting wall time limit to 48h; a checkpoint is written before the time limit',
  'Time limit reached. Elapsed time is 0:05:00. Signaling Trainer to stop.',
  'Installing SIGTERM signal handler; SIGTERM signal handler registered',
  'exit code 0\nExitCode: 0',
  'maintenance_policy: MIGRATE\nonHostMaintenance: TERMINATE',
  'Failed to connect to master at 10.0.0.1:29500, retrying (attempt 2/10)\nConnected to master at 10.0.0.1:29500',
  'handshake completed in 0.3s\nbootstrap timeout set to 600 s',
  'NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>',
  'GPU 0: health check passed\nMarking GPU-7540a9b3 healthy',
  'Xid errors: 0\n| 0  NVIDIA A100  On | 00000000:3B:00.0 Off |  0 |',
  'nvidia 0000:3b:00.0: AER: Corrected error received: 0000:3b:00.0, severity=Corrected',
  'step 100 completed in 3.2s\nstep 101 has completed',
  'NVSwitch non-fatal error counter: 0',
  '{"eval_dataset": {"text": "nan"}, "loss": 1.23}',
  'Creating tf.Tensor(1.0, shape=(), dtype=float32) for the loss weight',
  // A connect loop that ended in a connection (workers started before the master), and one too short to be a loop.
  [
    ...Array.from({ length: 9 }, () => 'failed to connect to [master-0]:29500 (errno: 111), retrying'),
    'connected to [master-0]:29500',
  ].join('\n'),
  'Connecting to rank 1 failed, waiting for 200 milliseconds\nConnected to rank 1',
  // An RL mean reward over a window in which no episode finished: numpy averaged nothing, nothing diverged.
  'RuntimeWarning: Mean of empty slice.\nMean Reward: nan\nMean Reward: nan\nMean Reward: 12.5',
  // Set-up still in progress, a retry, a configured limit: no peer missing yet.
  'client 3 failed to connect within 5 s, retrying\nclient 3 connected',
  'waiting for workers: 3 of 4 hosts joined so far',
  'if a rank never joined, the launcher would say so',
  'exit code 0 (15 steps)\npod trainer-0 created',
  'NCCL INFO init.cu:642 -> 0\nNCCL INFO transport.cu:165 -> 7',
  'waiting for executor threads to drain\nexecutor drained in 0.2 s',
  'Exception has occurred in a worker; see the report above (none: the check passed)',
  'objective: reg:squarederror\nmse: 0.031 (best 0.029)',
  'checking hidden_states for nan: none found',
  'lockdep: no circular locking dependency found',
  'Connection to 10.0.0.2:29500 lost and re-established after 2 s',
  'Lost connection to wandb.ai, retrying in 5 s',
  '{"dataset": "housing", "columns": {"total_bedrooms": {"nan_count": 207}}}',
];

describe('the eighth blind round: failure mechanisms in any software', () => {
  itClassifiesEachRow(FAILURES);
});

describe('the eighth blind round: look-alikes that stay healthy', () => {
  itStaysHealthy(HEALTHY);
});
