import { z } from 'zod';
import { checkEksClusters, DEFAULT_EKS_GROUP, type EksClusterSetting } from '../../lambdas/settings/eks.js';
import type { Codec } from './kinds.js';

/** One EKS cluster remediation may act in (docs/EKS.md, "Configuration"). */
export interface EksCluster {
  /** The cluster's name in EKS. */
  readonly name: string;
  /** The API server, `https://….eks.amazonaws.com` (`aws eks describe-cluster`: `cluster.endpoint`). */
  readonly endpoint: string;
  /**
   * Base64 of the cluster's CA certificate (`cluster.certificateAuthority.data`). The stack stores it in an SSM
   * parameter of its own and gives the function the parameter's name.
   */
  readonly certificateAuthority: string;
  /**
   * The cluster's region. The stack creates the access entry only for a cluster in its own region.
   * @default - the stack's region
   */
  readonly region?: string;
  /** The namespaces remediation may act in (at least one). */
  readonly namespaces: readonly string[];
  /**
   * The Kubernetes group the access entry puts the remediation role in.
   * @default 'trainwatch:remediation'
   */
  readonly group?: string;
}

/** The codec of the EKS clusters: the file's shape here, every rule the runtime's own (lambdas/settings/eks.ts). */
export const EKS_CODECS: { readonly [K in 'eksClusters']: Codec<K> } = {
  eksClusters: {
    zod: () =>
      z.array(
        z.strictObject({
          name: z.string(),
          endpoint: z.string(),
          certificateAuthority: z.string(),
          region: z.string().optional(),
          namespaces: z.array(z.string()).min(1, 'must list at least one namespace'),
          group: z.string().optional(),
        }),
      ),
    fromFile: (v) => v,
    resolve: (v, fail) => {
      let clusters: EksClusterSetting[];
      try {
        clusters = checkEksClusters(v);
      } catch (e) {
        return fail(`is invalid: ${(e as Error).message}`);
      }
      // The stack makes each CA's parameter (lib/eksAccess.ts): it takes the CA itself, never a parameter.
      const byParam = clusters.find((c) => !c.certificateAuthority);
      if (byParam)
        return fail(
          `is invalid: cluster ${byParam.name}: needs certificateAuthority (the stack stores it in an SSM parameter of its own)`,
        );
      return clusters;
    },
    // The default group is the runtime's too: left out, it spares the 4 KB environment a few bytes per cluster.
    toEnv: (v) =>
      JSON.stringify(v.map(({ group, ...c }) => (group === DEFAULT_EKS_GROUP ? c : { ...c, group }))),
  },
};

export type { EksClusterSetting };
