// Other controllers that own a job's recovery or admission: trainwatch reports next to them and never
// fights them. HyperPod's job auto-resume restarts a failed job itself (its annotations on the job); Kueue
// admits a job by suspending and resuming it (its queue label), so a suspend by trainwatch would be undone
// or, worse, hold the job out of its queue.
import type { Pod } from './cluster.js';
import type { Job } from './types.js';

/** HyperPod's job auto-resume annotations (SageMaker HyperPod on EKS, "Running jobs using kubectl"). */
export const HYPERPOD_AUTO_RESUME = 'sagemaker.amazonaws.com/enable-job-auto-resume';
export const HYPERPOD_MAX_RETRY = 'sagemaker.amazonaws.com/job-max-retry-count';
/** The label that puts a job in a Kueue LocalQueue. */
export const KUEUE_QUEUE = 'kueue.x-k8s.io/queue-name';

/** "HyperPod is retrying: 2 of 10" when HyperPod's auto-resume owns the job's recovery; undefined otherwise. */
export function hyperPodRetrying(job: Job, pods: readonly Pod[]): string | undefined {
  const a = job.manifest.metadata.annotations ?? {};
  if (a[HYPERPOD_AUTO_RESUME]?.toLowerCase() !== 'true') return undefined;
  const max = Number.parseInt(a[HYPERPOD_MAX_RETRY] ?? '', 10);
  // Its retries restart the job's containers: the most any container has restarted is how far it got.
  const tried = Math.max(0, ...pods.flatMap((p) => p.containers.map((c) => c.restartCount)));
  return `HyperPod is retrying: ${tried} of ${Number.isFinite(max) ? max : 'its maximum'} (job auto-resume owns this job's recovery; trainwatch does not restart it)`;
}

/** The Kueue queue that admits the job, if any: trainwatch never suspends such a job. */
export function kueueQueue(job: Job): string | undefined {
  return job.manifest.metadata.labels?.[KUEUE_QUEUE];
}
