import { describe } from 'vitest';
import { itClassifiesEachRow, itStaysHealthy, type SignalRow } from '../../support/classifyRows.js';

// Thirteenth blind round: the messages a stop from outside, a hang or a deadlock makes, enumerated from the source of
// the software that prints them (SLURM's slurmstepd, srun and salloc; OpenPBS's MoM and server; HTCondor's user log and
// vacate reasons; LSF's documented TERM_* reasons; the kubelet, scheduler and taint manager; torch.distributed's
// elastic agent and ProcessGroupNCCL's heartbeat monitor; the DataLoader; Lightning's SLURM connector; the kernel's
// hung-task and lockup detectors; Go's runtime; CPython's import lock; PostgreSQL; glibc's strerror). Each row is the
// template with plausible values filled in, never a corpus excerpt, never counted as accuracy.
const FAILURES: readonly SignalRow[] = [
  // SLURM: slurmstepd's banners, srun's and salloc's own words.
  [
    'cancelled_preempted',
    'slurm_job_state',
    'slurmstepd: error: *** JOB 4242 ON gpu-17 CANCELLED AT 2024-05-03T12:01:02 DUE TO TIME LIMIT ***',
  ],
  [
    'cancelled_preempted',
    'slurm_job_state',
    'slurmstepd: error: *** STEP 4242.0 ON gpu-17 CANCELLED AT 2024-05-03T12:01:02 DUE TO PREEMPTION ***',
  ],
  [
    'cancelled_preempted',
    'slurm_job_state',
    'slurmstepd: error: *** JOB 4242 ON gpu-17 CANCELLED AT 2024-05-03T12:01:02 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***',
  ],
  [
    'cancelled_preempted',
    'sigterm',
    'slurmstepd: error: *** JOB 4242 ON gpu-17 CANCELLED AT 2024-05-03T12:01:02 DUE TO JOB REQUEUE ***',
  ],
  [
    'cancelled_preempted',
    'sigterm',
    'slurmstepd: error: *** STEP 4242.0 ON gpu-17 CANCELLED AT 2024-05-03T12:01:02 DUE to SIGNAL Terminated ***',
  ],
  [
    'cancelled_preempted',
    'slurm_job_state',
    'slurmstepd: error: *** STEP 4242.0 STEPD TERMINATED ON gpu-17 AT 2024-05-03T12:01:02 DUE TO JOB NOT RUNNING ***',
  ],
  [
    'cancelled_preempted',
    'slurm_job_state',
    'slurmstepd: error: *** REASON: Job killed due node failure ***',
  ],
  [
    'cancelled_preempted',
    'sigterm',
    'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
  ],
  ['cancelled_preempted', 'sigterm', 'srun: Force Terminated StepId=4242.0'],
  ['cancelled_preempted', 'sigterm', 'srun: forcing job termination'],
  [
    'cancelled_preempted',
    'stop_signal_or_limit',
    'salloc: Job 4242 has exceeded its time limit and its allocation has been revoked.',
  ],
  ['cancelled_preempted', 'spot_interruption', 'srun: error: Node failure on gpu-17'],
  ['cancelled_preempted', 'scheduler_stop_reason', 'salloc: Job aborted due to signal'],
  [
    'cancelled_preempted',
    'scheduler_stop_reason',
    'salloc: error: Interrupted by signal. Allocation request rescinded.',
  ],
  ['cancelled_preempted', 'scheduler_stop_reason', 'srun: error: Slurm job 4242 has expired'],
  // Lightning's SLURM connector: the pre-limit signal handled, the job requeued, SIGTERM received.
  ['cancelled_preempted', 'spot_interruption', 'Handling auto-requeue signal: 10\nrequeing job 4242...'],
  ['cancelled_preempted', 'sigterm', '[rank: 0] Received SIGTERM: 15'],
  // OpenPBS: the MoM's kill message, the server's comments and log lines.
  ['cancelled_preempted', 'sigterm', '=>> PBS: job killed: walltime 3605 exceeded limit 3600'],
  ['cancelled_preempted', 'scheduler_stop_reason', 'comment = Job exceeded resource walltime'],
  ['cancelled_preempted', 'scheduler_stop_reason', 'Job requeued, execution node gpu-17 down'],
  ['cancelled_preempted', 'scheduler_stop_reason', 'Job deleted, execution node gpu-17 down'],
  ['cancelled_preempted', 'scheduler_stop_reason', 'job signaled with SIGTERM by root@pbs-server'],
  ['cancelled_preempted', 'spot_interruption', 'Job preempted by requeuing'],
  // LSF's termination reasons (bacct, bhist, bjobs) and bjobs' signal line.
  ['cancelled_preempted', 'sigterm', 'TERM_RUNLIMIT: job killed after reaching LSF run time limit.'],
  ['cancelled_preempted', 'sigterm', 'TERM_PREEMPT: job killed after preemption.'],
  [
    'cancelled_preempted',
    'scheduler_stop_reason',
    'TERM_REQUEUE_ADMIN: job killed and requeued by root or LSF administrator.',
  ],
  ['cancelled_preempted', 'scheduler_stop_reason', 'TERM_WINDOW: job killed after queue run window closed.'],
  ['cancelled_preempted', 'scheduler_stop_reason', 'TERM_DEADLINE: job killed after deadline expires.'],
  [
    'cancelled_preempted',
    'scheduler_stop_reason',
    'TERM_EXTERNAL_SIGNAL: job killed by a signal external to LSF.',
  ],
  ['cancelled_preempted', 'scheduler_stop_reason', 'Exited with signal termination: Terminated.'],
  ['cancelled_preempted', 'scheduler_stop_reason', 'Exited with signal termination: User defined signal 2.'],
  ['cancelled_preempted', 'sigint', 'Exited with signal termination: Interrupt.'],
  // HTCondor: the user log's events and the startd's vacate reasons.
  [
    'cancelled_preempted',
    'spot_interruption',
    '004 (123.000.000) 2024-05-03 12:00:00 Job was evicted.\n\t(0) Job was not checkpointed.',
  ],
  [
    'cancelled_preempted',
    'scheduler_stop_reason',
    '009 (123.000.000) 2024-05-03 12:00:00 Job was aborted.\n\tvia condor_rm (by user alice)',
  ],
  [
    'cancelled_preempted',
    'scheduler_stop_reason',
    '005 (123.000.000) 2024-05-03 12:00:00 Job terminated and was requeued',
  ],
  ['cancelled_preempted', 'scheduler_vacate', 'LastVacateReason = "Preempted for a Priority user"'],
  ['cancelled_preempted', 'scheduler_vacate', 'Preempted for a higher Ranked job'],
  ['cancelled_preempted', 'scheduler_vacate', 'Claim vacated by the administrator'],
  ['cancelled_preempted', 'scheduler_vacate', 'Job 123.0 is being evicted'],
  // Kubernetes: the kubelet's active deadline, the scheduler's preemption, the taint manager and pod GC.
  [
    'cancelled_preempted',
    'scheduler_stop_reason',
    'Pod was active on the node longer than the specified deadline',
  ],
  [
    'cancelled_preempted',
    'spot_interruption',
    'Normal  Preempted  30s  default-scheduler  Preempted by pod 5d1c9f4e-1111-2222-3333-444455556666 on node gpu-3',
  ],
  [
    'cancelled_preempted',
    'scheduler_vacate',
    'Normal  TaintManagerEviction  10s  taint-controller  Marking for deletion Pod default/trainer-0',
  ],
  [
    'cancelled_preempted',
    'scheduler_vacate',
    'Type: DisruptionTarget Reason: DeletionByPodGC Message: PodGC: node no longer exists',
  ],
  ['cancelled_preempted', 'spot_interruption', 'Message: Pod was rejected as the node is shutting down.'],
  // SageMaker's secondary status.
  [
    'cancelled_preempted',
    'scheduler_stop_reason',
    '2024-05-03 12:00:00 Stopping - Stopping the training job',
  ],
  ['cancelled_preempted', 'scheduler_stop_reason', '2024-05-03 12:00:00 Stopped - Training job stopped'],
  // torch.distributed.elastic: the agent's death signal and the SignalException it raises.
  [
    'cancelled_preempted',
    'sigterm',
    'torch.distributed.elastic.multiprocessing.api.SignalException: Process 4242 got signal: 15',
  ],
  ['cancelled_preempted', 'sigterm', 'W0503 api.py:704] Received 15 death signal, shutting down workers'],
  // ...and when a worker ignores the SIGTERM, the agent's own SIGKILL: still the stop, not the OOM killer.
  [
    'cancelled_preempted',
    'sigterm',
    'W0503 api.py:704] Received 15 death signal, shutting down workers\nW0503 api.py:719] Unable to shutdown process 4242 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL',
  ],
  [
    'cancelled_preempted',
    'sigterm',
    'RuntimeError: DataLoader worker (pid 4242) is killed by signal: Terminated.',
  ],
  // ProcessGroupNCCL's heartbeat monitor: the watchdog thread itself stuck.
  [
    'hang',
    'watchdog_stuck',
    '[PG ID 0 PG GUID 0(default_pg) Rank 3] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=1',
  ],
  ['hang', 'watchdog_stuck', '[Rank 3] First PG on this rank that detected no heartbeat of its watchdog.'],
  [
    'hang',
    'watchdog_stuck',
    '[Rank 3] Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.',
  ],
  [
    'hang',
    'watchdog_stuck',
    '[Rank 3] Could not acquire GIL within 300 ms on exit, possible GIL induced hang',
  ],
  // The kernel's detectors and Go's goroutine dump.
  ['hang', 'kernel_hung_task', 'INFO: task python3:4242 blocked for more than 120 seconds.'],
  ['hang', 'kernel_hung_task', 'Kernel panic - not syncing: hung_task: blocked tasks'],
  ['hang', 'kernel_hung_task', 'NMI watchdog: Watchdog detected hard LOCKUP on cpu 5'],
  ['hang', 'kernel_hung_task', 'BUG: workqueue lockup - pool cpus=3 node=0 flags=0x0 nice=0 stuck for 45s!'],
  ['hang', 'kernel_hung_task', 'rcu: INFO: rcu_sched detected stalls on CPUs/tasks:'],
  [
    'hang',
    'go_goroutine_blocked',
    'SIGQUIT: quit\ngoroutine 1 [semacquire, 12 minutes]:\nsync.runtime_Semacquire(0xc000012345)',
  ],
  // Deadlocks as their detectors name them.
  [
    'deadlock',
    'deadlock',
    'INFO: task python:4242 blocked on an rw-semaphore likely owned by task python:4243',
  ],
  ['deadlock', 'deadlock', 'INFO: task python:4242 is blocked on a mutex likely owned by task python:4243.'],
  [
    'deadlock',
    'deadlock',
    "_frozen_importlib._DeadlockError: deadlock detected by _ModuleLock('torch') at 139874",
  ],
  ['deadlock', 'deadlock', 'fatal error: all goroutines are asleep - deadlock!'],
  [
    'deadlock',
    'deadlock',
    'ERROR:  deadlock detected\nDETAIL:  Process 4242 waits for ShareLock on transaction 99; blocked by process 4243.',
  ],
  ['deadlock', 'deadlock', 'OSError: [Errno 35] Resource deadlock avoided'],
  ['deadlock', 'dataloader_timeout', 'RuntimeError: DataLoader timed out after 600 seconds'],
];

// Healthy look-alikes from the same software: a configured limit, a signal handler set up, a limit announced, a
// deletion cancelled, an event that resolved, a goroutine without a wait time, a detector's boot line.
const HEALTHY: readonly string[] = [
  // torchelastic's SIGKILL escalation alone says the agent stopped its workers, not why: no host OOM kill.
  'W0503 api.py:719] Unable to shutdown process 4242 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL',
  '#SBATCH --time=72:00:00\n#SBATCH --signal=SIGUSR1@90\n#SBATCH --requeue',
  'timeout 3600 python train.py --timeout 600',
  'Registered SIGTERM handler for graceful shutdown',
  'SLURM auto-requeueing enabled. Setting signal handlers.',
  'salloc: Job allocation time limit to be reached at 2024-05-04T12:00:00',
  'srun: job time limit to be reached at 2024-05-04T12:00:00',
  'Normal  TaintManagerEviction  taint-controller  Cancelling deletion of Pod default/trainer-0',
  '010 (123.000.000) 2024-05-03 12:00:00 Job was released.',
  '022 (123.000.000) 2024-05-03 12:00:00 Job disconnected, attempting to reconnect\n024 (123.000.000) 2024-05-03 12:00:05 Job reconnected to slot1@gpu-3',
  'If the training job stopped early, resume it from the last checkpoint.',
  'goroutine 5 [select]:\nnet/http.(*persistConn).writeLoop(0xc000123456)',
  'NMI watchdog: Enabled. Permanently consumes one hw-PMU counter.',
  'kernel.hung_task_timeout_secs = 120',
  'activeDeadlineSeconds: 86400',
  'MaxRuntimeInSeconds: 86400',
  'Job <4242> is submitted to queue <gpu>.\nSuccessfully completed.',
  'PBS: resources_used.walltime = 71:59:00',
  'salloc: Granted job allocation 4242',
  '2024-05-03 14:00:00 Completed - Training job completed',
  'lockdep: rw-semaphore debugging enabled',
];

describe('the thirteenth blind round: stops, hangs and deadlocks as their emitters print them', () => {
  itClassifiesEachRow(FAILURES);
});

describe('the thirteenth blind round: look-alikes from the same emitters that stay healthy', () => {
  itStaysHealthy(HEALTHY);
});
