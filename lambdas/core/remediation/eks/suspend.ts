// Suspending a job until what it ran on is gone, then resuming it: the gentler gang restart of a PyTorchJob
// (where the operator supports suspend) and the only restart of a RayJob.
import type { Launch } from '../launch.js';
import type { EksPlace, EksSettings } from './place.js';
import type { EksApi, Job, JobManifest } from './types.js';

/** How often, and how many times, a suspend is checked before giving up on it. */
export const POLL_MS = 2_000;
export const POLLS = 45;

export interface LaunchEks {
  readonly api: EksApi;
  readonly place: EksPlace;
  readonly settings: EksSettings;
  readonly sleep: (ms: number) => Promise<void>;
  /** The job's spec as trainwatch saved it while the job ran (re-creates a job that is gone). */
  readonly saved?: JobManifest;
}

export const no = (reason: string): Launch => ({ ok: false, reason });
export const failedMessage = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Suspends the job, waits until `gone` says its pods are gone, and resumes it. */
export async function suspendAndResume(
  c: LaunchEks,
  job: Job,
  gone: () => Promise<boolean>,
  waitedFor: string,
): Promise<Launch> {
  const { namespace } = c.place;
  const patch = (suspend: boolean) =>
    c.api.patchJob(
      namespace,
      job.kind,
      job.name,
      job.kind === 'PyTorchJob' ? { spec: { runPolicy: { suspend } } } : { spec: { suspend } },
    );
  try {
    await patch(true);
    let done = false;
    for (let i = 0; i < POLLS && !done; i++) {
      await c.sleep(POLL_MS);
      done = await gone();
    }
    if (!done)
      return no(
        `suspended ${job.kind} ${job.name} but ${waitedFor} within ${(POLLS * POLL_MS) / 1000} s: it stays suspended; resume it by hand (kubectl patch ${job.kind.toLowerCase()} ${job.name} -n ${namespace} --type merge -p '{"spec":…"suspend":false}')`,
      );
    await patch(false);
    return {
      ok: true,
      resumed: `suspended ${job.kind} ${job.name} until ${job.kind === 'RayJob' ? 'KubeRay reported it Suspended' : 'its pods were gone'}, then resumed it`,
    };
  } catch (e) {
    return no(`suspending ${job.kind} ${job.name} failed: ${failedMessage(e)}`);
  }
}
