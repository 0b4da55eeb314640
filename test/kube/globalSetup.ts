import { ensureKube } from '../../scripts/ensure-kube.mjs';

/**
 * Builds kube-apiserver and etcd (scripts/ensure-kube.mjs) unless the cached ones are current. A failed build
 * throws, which fails the run with Go's output and the command to build by hand: these tests never skip.
 */
export function setup(): void {
  ensureKube();
}
