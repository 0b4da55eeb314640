// Restarting a run on EKS the way its job runs. A PyTorchJob restarts as a gang: a single re-created pod
// of a non-elastic DDP job cannot rejoin and the rest hang (kubeflow/trainer 1478, 2269, 2300), so every pod
// of the job goes (deleted by label; the operator re-creates them all), or the job is suspended until its
// pods are gone and resumed. A job already Failed is re-created from its spec under a new name (the
// function may create jobs, never delete them). A RayJob is suspended until KubeRay says Suspended, then
// resumed, where KubeRay allows it. Never where another controller owns recovery or admission.
import type { Launch } from '../launch.js';
import type { Decision } from '../policy/index.js';
import type { Pod } from './cluster.js';
import { hyperPodRetrying, kueueQueue } from './owners.js';
import { failedMessage, type LaunchEks, no, suspendAndResume } from './suspend.js';
import { isKubeFailure, type Job, type JobManifest, jobPodSelector } from './types.js';

const isTrue = (job: Job, type: string) => job.conditions.some((c) => c.type === type && c.status === 'True');

/** A name for the re-created job: the old one with `-tw{attempt}` (≤ 63: it is also a pod label's value). */
export function recreatedName(name: string, attempt: number): string {
  const suffix = `-tw${attempt}`;
  const base = name.replace(/-tw\d+$/, '');
  return `${base.slice(0, 63 - suffix.length).replace(/[-.]+$/, '')}${suffix}`;
}

async function recreate(c: LaunchEks, from: JobManifest, name: string, why: string): Promise<Launch> {
  const { metadata } = from;
  const manifest: JobManifest = { ...from, metadata: { ...metadata, name, namespace: c.place.namespace } };
  try {
    await c.api.createJob(c.place.namespace, from.kind, manifest);
    return {
      ok: true,
      resumed: `${why}: created ${from.kind} ${name} from its saved spec (it resumes as its command does)`,
    };
  } catch (e) {
    return no(`could not create ${from.kind} ${name}: ${failedMessage(e)}`);
  }
}

async function restartPyTorchJob(c: LaunchEks, job: Job, attempt: number): Promise<Launch> {
  if (isTrue(job, 'Succeeded')) return no(`${job.kind} ${job.name} succeeded: nothing to restart`);
  if (isTrue(job, 'Failed'))
    return recreate(
      c,
      c.saved ?? job.manifest,
      recreatedName(job.name, attempt),
      `${job.kind} ${job.name} had failed`,
    );
  const selector = jobPodSelector(job)!;
  const queue = kueueQueue(job);
  if ((c.settings.gangRestart ?? 'pods') === 'suspend' && !queue)
    return suspendAndResume(
      c,
      job,
      async () => (await c.api.listPods(c.place.namespace, selector)).length === 0,
      'its pods were still there',
    );
  try {
    const deleted = await c.api.deletePods(c.place.namespace, selector);
    return {
      ok: true,
      resumed: `restarted the gang: deleted ${deleted.length} pod${deleted.length === 1 ? '' : 's'} of ${job.kind} ${job.name}, which its operator re-creates${queue ? ` (Kueue admits it through ${queue}: not suspended)` : ''}`,
    };
  } catch (e) {
    return no(`could not delete the pods of ${job.kind} ${job.name}: ${failedMessage(e)}`);
  }
}

/** Why KubeRay would reject suspending this RayJob (it would end ValidationFailed), if it would. */
export function raySuspendRefusal(job: Job): string | undefined {
  const spec = job.manifest.spec;
  if (spec.clusterSelector !== undefined)
    return `RayJob ${job.name} runs on an existing RayCluster (clusterSelector): KubeRay cannot suspend it`;
  if (spec.shutdownAfterJobFinishes !== true)
    return `RayJob ${job.name} has shutdownAfterJobFinishes: false, and KubeRay suspends only RayJobs that shut their cluster down`;
  return undefined;
}

/** Why trainwatch never restarts this RayJob (Kueue admits it, or KubeRay would reject the suspend), if so. */
function rayRefusal(job: Job): string | undefined {
  const queue = kueueQueue(job);
  if (queue)
    return `Kueue admits RayJob ${job.name} through ${queue}: trainwatch never suspends a Kueue-managed job`;
  return raySuspendRefusal(job);
}

/** Why no restart of this job can be carried out whatever the policy says (HyperPod owns it, a RayJob's refusal). */
export function standingRefusal(job: Job, pods: readonly Pod[]): string | undefined {
  return hyperPodRetrying(job, pods) ?? (job.kind === 'RayJob' ? rayRefusal(job) : undefined);
}

async function restartRayJob(c: LaunchEks, job: Job): Promise<Launch> {
  const refusal = rayRefusal(job);
  if (refusal) return no(refusal);
  return suspendAndResume(
    c,
    job,
    async () => (await c.api.getJob(c.place.namespace, 'RayJob', job.name)).deploymentStatus === 'Suspended',
    'KubeRay did not report it Suspended',
  );
}

/** The longest backoff the function waits out itself before acting (its timeout is 5 minutes). */
export const MAX_WAIT_MS = 2 * 60_000;

/**
 * Restarts the run's job for attempt `d.nextAttempt`; a refusal or failure is a reason, never a throw. The
 * policy's backoff is waited out here when short; a longer one is not kept (nothing on the cluster runs
 * trainwatch's delay, as the restart document does on an instance), and the alert says so.
 */
export async function launchEks(c: LaunchEks, d: Decision): Promise<Launch> {
  const delay = d.delayMs ?? 0;
  if (delay > 0 && delay <= MAX_WAIT_MS) await c.sleep(delay);
  const launched = await launchNow(c, d);
  if (!launched.ok || delay <= MAX_WAIT_MS) return launched;
  return {
    ...launched,
    delayMs: 0,
    resumed: `${launched.resumed}; at once: a backoff of ${Math.round(delay / 60_000)} min is longer than the function may wait on EKS`,
  };
}

async function launchNow(c: LaunchEks, d: Decision): Promise<Launch> {
  const { place } = c;
  let job: Job;
  try {
    job = await c.api.getJob(place.namespace, place.kind, place.job);
  } catch (e) {
    if (isKubeFailure(e, 404) && c.saved)
      return recreate(c, c.saved, place.job, `${place.kind} ${place.job} was gone`);
    return no(`could not read ${place.kind} ${place.job}: ${failedMessage(e)}`);
  }
  const pods = await c.api
    .listPods(place.namespace, jobPodSelector(job) ?? { 'ray.io/cluster': job.name })
    .catch(() => []);
  const owned = hyperPodRetrying(job, pods);
  if (owned) return no(owned);
  return job.kind === 'PyTorchJob' ? restartPyTorchJob(c, job, d.nextAttempt ?? 2) : restartRayJob(c, job);
}
