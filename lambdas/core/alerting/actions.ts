import type { Alert } from '../model/alert.js';
import type { WarningCause } from '../model/cause.js';
import { RunState } from '../model/states.js';

const RESUME = 'then resume from the last checkpoint';

/** The next step for a person, per error type (DESIGN: failure classes). */
export const ERROR_ACTIONS: Readonly<Record<string, string>> = {
  oom: `Reduce batch size or sequence length (or enable activation checkpointing), ${RESUME}`,
  cpu_oom_killed: `The host ran out of RAM: lower dataloader workers or prefetching, or use an instance with more memory, ${RESUME}`,
  disk_full: 'Free disk space on the checkpoint volume (delete old checkpoints) and restart',
  numerical_instability: `Lower the learning rate (or add warmup / gradient clipping), check the data for bad samples, train in bf16 rather than fp16, ${RESUME} taken before the loss diverged`,
  exception: `Fix the error shown in the log (a restart would fail the same way), ${RESUME}`,
  torch: `Fix the PyTorch error shown in the log (shape, dtype or device mismatch; a restart would fail the same way), ${RESUME}`,
  nccl: `Check NCCL on every node (set NCCL_DEBUG=INFO, check EFA / network health), ${RESUME}`,
  nccl_timeout: `A collective timed out: look for a dead or straggling rank in the per-rank logs, ${RESUME}`,
  distributed_timeout: `A rank did not join in time: check that every node is up and can reach the master address and port, ${RESUME}`,
  watchdog_timeout: `The NCCL watchdog aborted a stuck collective: find the stuck rank in its log, ${RESUME}`,
  communication: `Check connectivity between nodes (security groups, EFA, interface names), ${RESUME}`,
  hang: `The process is alive but not progressing: capture stacks (py-spy dump --pid <pid>), kill it, ${RESUME}`,
  deadlock: `Capture the stacks of all ranks (py-spy dump) to find the deadlock, kill the job, ${RESUME}`,
  gpu_xid: `The GPU reported an Xid error: replace the node (stop and start the instance to move hosts), ${RESUME}`,
  ecc_error: `A GPU has an uncorrectable ECC error (or failed to remap a memory row): drain the node and run on another one (stop and start the instance to move hosts; nvidia-smi -q -d ECC,ROW_REMAPPER shows the counters), ${RESUME}`,
  efa_fallback:
    'NCCL is using TCP sockets instead of EFA (the OFI plugin did not load, or picked a TCP provider or none): the run is slow, and a restart changes nothing until the network is fixed. Check FI_PROVIDER=efa, fi_info -p efa, the aws-ofi-nccl install and LD_LIBRARY_PATH, and the EFA security group (all traffic to itself)',
  cancelled_preempted:
    'The instance was preempted or reclaimed: resume from the last checkpoint on a new instance',
};

/** When no error type is known for a failure. */
export const UNKNOWN_ERROR_ACTION = `Read _error and the log tail in S3, fix the cause, ${RESUME}`;

/** The next step for a person, per state, when no error type is more specific. */
export const STATE_ACTIONS: Readonly<Record<RunState, string>> = {
  PENDING: 'Nothing to do yet: waiting for the first heartbeat',
  RUNNING: 'Nothing to do: the run has recovered and is making progress',
  WARNING: 'Check the run (see the reason); it will time out if heartbeats stay stale',
  STALLED: `Heartbeats arrive but the step does not advance: check the log for a hang (py-spy dump), kill the process if it is stuck, ${RESUME}`,
  TIMED_OUT: `Heartbeats stopped: check that the instance is running and the training process is alive, ${RESUME}`,
  FAILED: UNKNOWN_ERROR_ACTION,
  SUCCEEDED: 'Collect the artefacts (checkpoints, logs), then stop the instance to stop paying for it',
  RESTARTING: 'Nothing to do: trainwatch restarted the run and is waiting for a heartbeat of the new attempt',
};

/** The WARNING causes that name what to look at; a stale heartbeat or a file finding gets the state's action. */
type OwnActionCause = Exclude<WarningCause, 'heartbeat_stale' | 'finding' | 'stacks'>;

/**
 * What to do about a WARNING, by what caused it (a node, the run's health); a stale heartbeat or a finding of the
 * run's own files gets the state's action. Every node and health cause must have its own (checked by the type).
 */
export const WARNING_ACTIONS: Readonly<Record<OwnActionCause, string>> = {
  node_silent:
    'A node stopped writing its heartbeat: check that instance (is it up, is its training process alive, dmesg for Xid errors); the other ranks will block in the next collective',
  nodes_missing:
    'Some nodes never reported: check that every node started the job (scheduler, launcher logs) and may write to the heartbeat bucket',
  throughput_drop:
    'The run is slower than its own baseline: check the NCCL transport on every node (NCCL_DEBUG=INFO: NET/Socket instead of NET/OFI or Libfabric means EFA is not used), then the data pipeline and other jobs on the nodes',
  straggler:
    'One node is slower than the others and the whole job runs at its pace: check its GPUs (nvidia-smi: clocks, temperature, ECC), its disk and its network, or move the job off it',
  idle_gpus:
    'GPUs sit idle while the job is RUNNING: dump the training process on that node (py-spy dump --pid <pid>: a data loader or a collective may be stuck); every idle hour is paid for',
  data_bound:
    'The GPUs wait for data while steps still advance: the run works, slowly. Feed it faster (more DataLoader workers, pin_memory and prefetching, the dataset on local NVMe or FSx for Lustre rather than streamed from S3) and check the CPU use of the input pipeline (py-spy top)',
};

/** States where a known error type says more than the state itself. */
const ERROR_SPECIFIC: ReadonlySet<RunState> = new Set([
  RunState.FAILED,
  RunState.TIMED_OUT,
  RunState.STALLED,
  RunState.WARNING,
]);

/** A stall whose stacks say where each node waits (the reason names the likely cause). */
const STALLED_WITH_STACKS = `The reason says where each node's training thread waits: look at the likely cause on the node it names (its log, py-spy dump --pid <pid> there), kill the job if it is stuck, ${RESUME}`;

/** The concrete next step for a person, for a run in `state` with an optional error type or WARNING cause. */
export function actionFor(state: RunState, errorType?: string | null, cause?: WarningCause): string {
  // hasOwn: profiles may define their own error types, which must not hit Object.prototype ("constructor").
  if (errorType && ERROR_SPECIFIC.has(state) && Object.hasOwn(ERROR_ACTIONS, errorType))
    return ERROR_ACTIONS[errorType]!;
  if (state === RunState.STALLED && cause === 'stacks') return STALLED_WITH_STACKS;
  if (state === RunState.WARNING && cause && Object.hasOwn(WARNING_ACTIONS, cause))
    return WARNING_ACTIONS[cause as OwnActionCause];
  return STATE_ACTIONS[state];
}

const SEVERITY: Readonly<Record<RunState, Alert['severity']>> = {
  PENDING: 'info',
  RUNNING: 'success',
  WARNING: 'warning',
  STALLED: 'critical',
  TIMED_OUT: 'critical',
  FAILED: 'critical',
  SUCCEEDED: 'success',
  RESTARTING: 'info',
};

/** How loudly to tell people about a run entering `state`. */
export function severityFor(state: RunState): Alert['severity'] {
  return SEVERITY[state];
}
