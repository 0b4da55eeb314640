import { ec2Platform } from './ec2Platform.js';
import { describePlace } from './eks/place.js';
import { eksPlatform, unreachable } from './eks/platform.js';
import type { Platform } from './platform.js';
import type { RemediationTarget } from './target.js';
import type { RemediationDeps } from './types.js';

/** The platform a run lives on, from its target: EKS where metadata.json says so, else EC2. */
export async function platformFor(deps: RemediationDeps, t: RemediationTarget): Promise<Platform> {
  if (t.eksProblem) return unreachable('EKS', t.eksProblem);
  const place = t.eks;
  if (!place) return ec2Platform(deps, t);
  const where = describePlace(place);
  const eks = deps.settings.eks;
  if (!deps.eks || !eks)
    return unreachable(where, 'this stack has no EKS access configured (remediation.eks)');
  try {
    return eksPlatform(await deps.eks(place.cluster), place, eks, deps.sleep ?? wait);
  } catch (e) {
    return unreachable(
      where,
      `cluster ${place.cluster} cannot be reached: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
