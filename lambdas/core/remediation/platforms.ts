import { ec2Platform } from './ec2Platform.js';
import type { Platform } from './platform.js';
import type { RemediationTarget } from './target.js';
import type { RemediationDeps } from './types.js';

/** The platform a run lives on, from its target: EC2 unless its metadata says otherwise. */
export async function platformFor(deps: RemediationDeps, t: RemediationTarget): Promise<Platform> {
  return ec2Platform(deps, t);
}
