import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutParameterCommand } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remediationDeps } from '../../lambdas/wiring/remediation.js';
import { type TestEnvironment, testEnvironment } from '../support/environment.js';

// The stack gives the remediation function each cluster's CA as an SSM parameter's name (docs/EKS.md,
// "Configuration"): the wiring reads it on the cluster's first use and trusts that CA, and no other.

let dir: string;
let server: Server;
let endpoint: string;
let ca: string;
const requests: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tw-eks-ca-'));
  // A self-signed certificate for 127.0.0.1: the cluster's CA and its API server's certificate at once.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=kube-apiserver',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(join(dir, 'cert.pem'));
  ca = cert.toString('base64');
  server = createServer({ cert, key: readFileSync(join(dir, 'key.pem')) }, (req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.authorization?.startsWith('Bearer k8s-aws-v1.')}`);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ metadata: { name: 'node-a' }, spec: {}, status: { conditions: [] } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  endpoint = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function withCluster(param: string): Promise<TestEnvironment> {
  return testEnvironment({
    TRAINWATCH_EKS_CLUSTERS: JSON.stringify([
      { name: 'ml-prod', endpoint, certificateAuthorityParam: param, namespaces: ['training'] },
    ]),
  });
}

describe('an EKS cluster whose CA is in SSM', () => {
  it('reads the CA from its parameter on first use and reaches the cluster with it', async () => {
    const param = `/trainwatch/${Date.now()}/eks/ml-prod/certificate-authority`;
    const t = await withCluster(param);
    try {
      const app = t.app();
      await app.clients.ssm.send(new PutParameterCommand({ Name: param, Type: 'String', Value: ca }));
      const deps = remediationDeps(app);
      const api = await deps.eks!('ml-prod');
      expect(await api.getNode('node-a')).toMatchObject({ name: 'node-a' });
      expect(requests.at(-1)).toBe('GET /api/v1/nodes/node-a true');
      // Kept: the same client, not a second read.
      expect(await deps.eks!('ml-prod')).toBe(api);
    } finally {
      await t.close();
    }
  });

  it('names the parameter when it cannot be read, and reads it again next time', async () => {
    const param = `/trainwatch/${Date.now()}/eks/ml-prod/missing`;
    const t = await withCluster(param);
    try {
      const app = t.app();
      const deps = remediationDeps(app);
      await expect(deps.eks!('ml-prod')).rejects.toThrow(
        new RegExp(`EKS cluster ml-prod: cannot read SSM parameter ${param}: ParameterNotFound`),
      );
      await app.clients.ssm.send(new PutParameterCommand({ Name: param, Type: 'String', Value: ca }));
      const api = await deps.eks!('ml-prod');
      expect(await api.getNode('node-a')).toMatchObject({ name: 'node-a' });
    } finally {
      await t.close();
    }
  });

  it('refuses a parameter that does not hold a certificate, naming it', async () => {
    const param = `/trainwatch/${Date.now()}/eks/ml-prod/not-a-ca`;
    const t = await withCluster(param);
    try {
      const app = t.app();
      await app.clients.ssm.send(new PutParameterCommand({ Name: param, Type: 'String', Value: 'hello' }));
      await expect(remediationDeps(app).eks!('ml-prod')).rejects.toThrow(
        `EKS cluster ml-prod: SSM parameter ${param} does not hold base64 of a PEM certificate`,
      );
    } finally {
      await t.close();
    }
  });
});
