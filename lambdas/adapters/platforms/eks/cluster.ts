// An EKS cluster as trainwatch's configuration names it (no EKS API call: the endpoint and CA are
// configured), reached with a token signed by the function's own IAM role.
import { type EksApi, eksApi } from './eksApi.js';
import { kubeApi } from './kubeApi.js';
import { type AwsCredentials, type CredentialSource, eksTokenSource } from './token.js';

/** One cluster from the configuration. */
export interface EksClusterConfig {
  /** The cluster's name in EKS: signed into every token. */
  readonly name: string;
  /** The API server, `https://….eks.amazonaws.com`. */
  readonly endpoint: string;
  /** Base64 of the cluster's CA certificate (EKS's `certificateAuthority.data`). */
  readonly certificateAuthority: string;
  readonly region: string;
}

export interface EksClusterOptions {
  /** @default the SDK's default provider chain (in a Lambda: the function role) */
  readonly credentials?: CredentialSource;
  /** Injected clock (ms) for the token's reuse. */
  readonly clock?: () => number;
  /** Per request. @default 10000 */
  readonly timeoutMs?: number;
}

/** The SDK's default chain, its module imported on the first signing (the Lambda runtime provides it). */
function defaultCredentials(): () => Promise<AwsCredentials> {
  let chain: Promise<() => Promise<AwsCredentials>> | undefined;
  return async () => {
    chain ??= import('@aws-sdk/credential-provider-node').then((m) => m.defaultProvider());
    return (await chain)();
  };
}

/** The calls trainwatch makes on the cluster, as the principal whose credentials sign the token. */
export function eksCluster(config: EksClusterConfig, opts: EksClusterOptions = {}): EksApi {
  if (!/^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/.test(config.name))
    throw new Error(`${JSON.stringify(config.name)} is not an EKS cluster name`);
  const token = eksTokenSource({
    clusterName: config.name,
    region: config.region,
    credentials: opts.credentials ?? defaultCredentials(),
    clock: opts.clock,
  });
  return eksApi(
    kubeApi({
      endpoint: config.endpoint,
      certificateAuthority: config.certificateAuthority,
      token,
      timeoutMs: opts.timeoutMs,
    }),
  );
}
