import { describe } from 'vitest';
import { itClassifiesEachRow, itStaysHealthy, type SignalRow } from '../support/classifyRows.js';

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
];

describe('the ninth blind round: mechanisms in the words of other software', () => {
  itClassifiesEachRow(FAILURES);
});

describe('the ninth blind round: look-alikes that stay healthy', () => {
  itStaysHealthy(HEALTHY);
});
