import { describe, expect, it } from 'vitest';
import {
  CLUSTER_ID_HEADER,
  eksToken,
  eksTokenSource,
  PRESIGN_SECONDS,
  TOKEN_PREFIX,
  TOKEN_REUSE_MS,
} from '../../lambdas/adapters/platforms/eks/token.js';
import { expectedSignature, tokenUrl } from './sigv4.js';

// The token's shape and signature, checked without AWS: the signature is recomputed from the SigV4
// specification (./sigv4.ts, node:crypto's HMAC chain), and compared with URLs botocore signed for the same
// inputs. Whether EKS then accepts the token is for EKS to say: there is no EKS here (docs/EKS.md).

const KEYS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const SESSION = {
  accessKeyId: 'ASIAEXAMPLEKEY123456',
  secretAccessKey: 'secret/with+chars=',
  sessionToken: 'FQoGZXIvYXdzEXAMPLE//token+/=',
};
const NOW = new Date('2024-05-01T12:00:00Z');

const urlOf = tokenUrl;

describe('eksToken', () => {
  it('is k8s-aws-v1. and the unpadded base64url of a presigned STS GetCallerIdentity URL for the region', async () => {
    const token = await eksToken({ clusterName: 'demo', region: 'eu-west-1', credentials: KEYS, now: NOW });
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(token.slice(TOKEN_PREFIX.length)).toMatch(/^[A-Za-z0-9_-]+$/); // no padding, no + or /
    const url = urlOf(token);
    expect(url.origin).toBe('https://sts.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    const p = Object.fromEntries(url.searchParams);
    expect(p).toMatchObject({
      Action: 'GetCallerIdentity',
      Version: '2011-06-15',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIDEXAMPLE/20240501/eu-west-1/sts/aws4_request',
      'X-Amz-Date': '20240501T120000Z',
      'X-Amz-Expires': String(PRESIGN_SECONDS),
    });
    expect(PRESIGN_SECONDS).toBe(60);
    expect(p['X-Amz-SignedHeaders']!.split(';')).toEqual(['host', CLUSTER_ID_HEADER]);
    expect(CLUSTER_ID_HEADER).toBe('x-k8s-aws-id');
    expect(p['X-Amz-Signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(p).not.toHaveProperty('X-Amz-Security-Token');
  });

  it('carries a signature the SigV4 HMAC chain recomputes, with the cluster name in the signed header', async () => {
    const token = await eksToken({ clusterName: 'demo', region: 'us-east-1', credentials: KEYS, now: NOW });
    const url = urlOf(token);
    const sig = url.searchParams.get('X-Amz-Signature');
    expect(sig).toBe(expectedSignature(url, 'demo', KEYS.secretAccessKey));
    // Another cluster's name, secret or date gives another signature: the name is really signed.
    expect(sig).not.toBe(expectedSignature(url, 'other', KEYS.secretAccessKey));
    expect(sig).not.toBe(expectedSignature(url, 'demo', 'another-secret'));
  });

  it('signs the session token of temporary credentials (a Lambda role) into the URL', async () => {
    const token = await eksToken({
      clusterName: 'prod-training',
      region: 'eu-west-1',
      credentials: async () => SESSION,
      now: new Date('2025-01-02T03:04:05Z'),
    });
    const url = urlOf(token);
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe(SESSION.sessionToken);
    expect(url.searchParams.get('X-Amz-Signature')).toBe(
      expectedSignature(url, 'prod-training', SESSION.secretAccessKey),
    );
  });

  it('signs as botocore (what `aws eks get-token` uses) signs the same request', async () => {
    // botocore 1.43.11: sts.generate_presigned_url('get_caller_identity', ExpiresIn=60, HttpMethod='GET')
    // with the header x-k8s-aws-id added before signing and the clock fixed at the same instant.
    const cases = [
      {
        req: { clusterName: 'demo', region: 'us-east-1', credentials: KEYS, now: NOW },
        signature: '0d286af7cc77246b91ff58965d8e402ee9d7358c3e21cfa6ba7a98a2af4915f8',
      },
      {
        req: {
          clusterName: 'prod-training',
          region: 'eu-west-1',
          credentials: SESSION,
          now: new Date('2025-01-02T03:04:05Z'),
        },
        signature: 'b9abc04aae615d8dff4d810226a8b093fed0610afcc76c935f415ad6281817e5',
      },
    ];
    for (const { req, signature } of cases)
      expect(urlOf(await eksToken(req)).searchParams.get('X-Amz-Signature')).toBe(signature);
  });

  it('refuses a region that is not one, before it becomes a host name', async () => {
    for (const region of ['evil.example.com/x', 'us-east-1.attacker', '', 'US-EAST-1'])
      await expect(eksToken({ clusterName: 'demo', region, credentials: KEYS })).rejects.toThrow(
        /is not an AWS region/,
      );
    const cn = urlOf(
      await eksToken({ clusterName: 'demo', region: 'cn-north-1', credentials: KEYS, now: NOW }),
    );
    expect(cn.host).toBe('sts.cn-north-1.amazonaws.com.cn');
  });
});

describe('eksTokenSource', () => {
  it('reuses a token for 10 minutes, then signs a new one at the current time', async () => {
    let now = NOW.getTime();
    const source = eksTokenSource({
      clusterName: 'demo',
      region: 'us-east-1',
      credentials: KEYS,
      clock: () => now,
    });
    const first = await source();
    now += TOKEN_REUSE_MS - 1;
    expect(await source()).toBe(first);
    now += 1;
    const second = await source();
    expect(second).not.toBe(first);
    expect(urlOf(second).searchParams.get('X-Amz-Date')).toBe('20240501T121000Z');
    expect(TOKEN_REUSE_MS).toBe(10 * 60_000);
  });

  it('signs anew when asked for a fresh token, and shares one signing between concurrent callers', async () => {
    let now = NOW.getTime();
    let signings = 0;
    const credentials = async () => {
      signings++;
      return KEYS;
    };
    const source = eksTokenSource({
      clusterName: 'demo',
      region: 'us-east-1',
      credentials,
      clock: () => now,
    });
    const [a, b] = await Promise.all([source(), source()]);
    expect(a).toBe(b);
    expect(signings).toBe(1);
    now += 1000;
    expect(await source(true)).not.toBe(a);
    expect(signings).toBe(2);
  });

  it('does not remember a failed signing', async () => {
    let fail = true;
    const credentials = async () => {
      if (fail) throw new Error('no credentials yet');
      return KEYS;
    };
    const source = eksTokenSource({ clusterName: 'demo', region: 'us-east-1', credentials, clock: () => 0 });
    await expect(source()).rejects.toThrow('no credentials yet');
    fail = false;
    expect((await source()).startsWith(TOKEN_PREFIX)).toBe(true);
  });
});
