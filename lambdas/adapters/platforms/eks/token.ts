// The bearer token EKS accepts from an IAM principal, made the way aws-iam-authenticator and `aws eks
// get-token` make it: a GET of STS GetCallerIdentity, presigned for 60 s with the cluster's name in the
// signed header `x-k8s-aws-id`, then base64url-encoded (no padding) behind `k8s-aws-v1.`. The cluster's
// authenticator sends the URL to STS to learn who signed it; the signed header stops a token made for one
// cluster working on another.
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from './sha256.js';

/** What every EKS token starts with. */
export const TOKEN_PREFIX = 'k8s-aws-v1.';

/** The signed header that names the cluster the token is for. */
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';

/** The presigned URL's X-Amz-Expires, as the authenticator's own client signs it. */
export const PRESIGN_SECONDS = 60;

/** EKS takes a token for 15 min after its X-Amz-Date; one is reused for 10, so none is sent near its end. */
export const TOKEN_REUSE_MS = 10 * 60_000;

/** An IAM principal's keys (the SDK's AwsCredentialIdentity). */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** Keys, or where to get them (the default provider chain in a Lambda: the function role's keys). */
export type CredentialSource = AwsCredentials | (() => Promise<AwsCredentials>);

export interface EksTokenRequest {
  /** The cluster's name, as EKS knows it (not its endpoint). */
  readonly clusterName: string;
  /** The cluster's region: the token is signed for that region's STS endpoint. */
  readonly region: string;
  readonly credentials: CredentialSource;
  /** The signing time. @default now */
  readonly now?: Date;
}

/** The STS endpoint a token for `region` is presigned against. */
export function stsHost(region: string): string {
  if (!/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(region))
    throw new Error(`${JSON.stringify(region)} is not an AWS region`);
  return `sts.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
}

function encode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** A bearer token for the cluster: `k8s-aws-v1.` + unpadded base64url of the presigned STS URL. */
export async function eksToken(req: EksTokenRequest): Promise<string> {
  const hostname = stsHost(req.region);
  const keys = req.credentials;
  const signer = new SignatureV4({
    service: 'sts',
    region: req.region,
    credentials: typeof keys === 'function' ? keys : async () => keys,
    sha256: Sha256,
  });
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, [CLUSTER_ID_HEADER]: req.clusterName },
    },
    { expiresIn: PRESIGN_SECONDS, signingDate: req.now ?? new Date() },
  );
  const query = Object.entries(signed.query ?? {})
    .flatMap(([k, v]) =>
      (Array.isArray(v) ? v : [v]).map((one) => `${encode(k)}=${encode(String(one ?? ''))}`),
    )
    .sort()
    .join('&');
  return TOKEN_PREFIX + Buffer.from(`https://${hostname}/?${query}`, 'utf8').toString('base64url');
}

export interface EksTokenSourceOptions extends Omit<EksTokenRequest, 'now'> {
  /** Injected clock (ms). @default Date.now */
  readonly clock?: () => number;
}

/**
 * A token per call, signed anew only every TOKEN_REUSE_MS (or when `fresh` asks: the cluster answered 401).
 * Concurrent callers share one signing.
 */
export function eksTokenSource(opts: EksTokenSourceOptions): (fresh?: boolean) => Promise<string> {
  const clock = opts.clock ?? Date.now;
  let cached: { token: Promise<string>; at: number } | undefined;
  return (fresh = false) => {
    const at = clock();
    if (!cached || fresh || at - cached.at >= TOKEN_REUSE_MS) {
      const mine = { token: eksToken({ ...opts, now: new Date(at) }), at };
      cached = mine;
      mine.token.catch(() => {
        if (cached === mine) cached = undefined; // a failed signing is not remembered
      });
    }
    return cached.token;
  };
}
