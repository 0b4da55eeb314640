import type { RunRecord } from '../../model/record.js';
import type { Platform } from '../platform.js';
import { launchEks, standingRefusal } from './launch.js';
import { describePlace, type EksPlace, type EksSettings } from './place.js';
import { probeEks } from './probe.js';
import type { LaunchEks } from './suspend.js';
import type { EksApi, JobManifest } from './types.js';

/** The job's spec trainwatch saved while it ran (remediation state), if it can be read back. */
function savedJob(rec: RunRecord): JobManifest | undefined {
  try {
    const saved = rec.remediation?.savedJob;
    return saved ? (JSON.parse(saved) as JobManifest) : undefined;
  } catch {
    return undefined;
  }
}

/** A Kubernetes job on EKS, through the cluster's API (`api`, authenticated as the remediation role). */
export function eksPlatform(
  api: EksApi,
  place: EksPlace,
  settings: EksSettings,
  sleep: (ms: number) => Promise<void>,
): Platform {
  // What the probe found that rules any restart out (HyperPod owns the job, KubeRay would refuse): the policy's
  // verdict and the Restart-now offer ask after the probe, and a platform serves one remediation only.
  let refusal: string | undefined;
  return {
    where: describePlace(place),
    probe: async (_t, rec) => {
      const seen = await probeEks(api, place, rec);
      refusal = seen.job && standingRefusal(seen.job, seen.pods ?? []);
      return seen;
    },
    // Restarting needs no command: the job's operator starts its pods again.
    cannotRestart: () => refusal,
    launch: (rec, _t, d) => {
      const c: LaunchEks = { api, place, settings, sleep, saved: savedJob(rec) };
      return launchEks(c, d);
    },
  };
}

/** A run on EKS that cannot be reached (no access configured, or a place the configuration refuses). */
export function unreachable(where: string, why: string): Platform {
  return {
    where,
    probe: async () => ({ probe: { ok: false, finding: why }, evidence: '' }),
    cannotRestart: () => why,
    launch: async () => ({ ok: false, reason: why }),
  };
}
