// A real Kubernetes API server for the kube tests and the local mode's run on EKS (docs/KUBE_TESTING.md): etcd
// and kube-apiserver, built by scripts/ensure-kube.mjs, run on loopback ports with a temporary data directory, static bearer tokens and RBAC.
// No kubelet, scheduler or controller manager: objects are stored and authorized, nothing runs them.
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { kubeBinaries } from '../scripts/ensure-kube.mjs';

export interface Kube {
  /** https://127.0.0.1:<port> */
  url: string;
  /** PEM of the server's self-signed certificate and its CA (from --cert-dir); pass it as `ca` to verify TLS. */
  ca: string;
  /** User `admin`, group `system:masters`: allowed everything, whatever RBAC says. */
  adminToken: string;
  /** User `trainwatch-remediation`, group `trainwatch:remediation`: allowed only what a binding grants. */
  trainwatchToken: string;
  /** User `someone-else`, no groups beyond system:authenticated: for negative tests. */
  otherToken: string;
  /** The temporary directory holding etcd's data, the certificates, keys, token file and both logs. */
  dir: string;
  /** Kills kube-apiserver and etcd and removes the temporary directory. */
  stop(): Promise<void>;
}

export interface KubeResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** One request to the API server with a bearer token; the body is parsed when it is JSON, else kept as text. */
export function kubeRequest<T = Record<string, unknown>>(
  kube: Pick<Kube, 'url' | 'ca'>,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<KubeResponse<T>> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      new URL(path, kube.url),
      {
        method,
        ca: kube.ca,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(payload === undefined
            ? {}
            : { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }),
        },
        timeout: 15_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // plain text, as /readyz answers
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as T });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 15 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const tail = (file: string, lines = 30): string => {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
};

interface Started {
  child: ChildProcess;
  log: string;
  exited: () => string | undefined;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function launch(binary: string, args: string[], log: string): Started {
  if (!exitHookInstalled) {
    // A worker that dies without afterAll must not leave etcd or kube-apiserver behind.
    process.once('exit', () => {
      for (const child of running) child.kill('SIGKILL');
    });
    exitHookInstalled = true;
  }
  const fd = openSync(log, 'a');
  const child = spawn(binary, args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  running.add(child);
  let exit: string | undefined;
  child.on('exit', (code, signal) => {
    running.delete(child);
    exit = signal ? `killed by ${signal}` : `exited with code ${code}`;
  });
  child.on('error', (error) => {
    running.delete(child);
    exit = `could not start: ${error.message}`;
  });
  return { child, log, exited: () => exit };
}

async function halt({ child, exited }: Started): Promise<void> {
  if (exited() !== undefined || child.exitCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

async function waitFor(
  what: string,
  started: Started,
  timeoutMs: number,
  probe: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const exit = started.exited();
    if (exit !== undefined) {
      throw new Error(
        `${what} ${exit} before it was ready; last lines of ${started.log}:\n${tail(started.log)}`,
      );
    }
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) {
      throw new Error(
        `${what} not ready in ${timeoutMs / 1000} s; last lines of ${started.log}:\n${tail(started.log)}`,
      );
    }
    await sleep(250);
  }
}

/**
 * Starts etcd and kube-apiserver on free loopback ports and waits until /readyz answers ok. The binaries come
 * from scripts/ensure-kube.mjs (the `kube` vitest project's globalSetup builds them); throws when they're missing.
 */
export async function startKube({ readyTimeoutMs = 90_000 } = {}): Promise<Kube> {
  const binaries = kubeBinaries();
  for (const binary of [binaries.kubeApiserver, binaries.etcd]) {
    if (!existsSync(binary)) {
      throw new Error(
        `${binary} is not built: run \`node scripts/ensure-kube.mjs\` (a cold build takes 12–16 min)`,
      );
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'trainwatch-kube-'));
  const started: Started[] = [];
  const stop = async () => {
    for (const s of started.reverse()) await halt(s);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [etcdClientPort, etcdPeerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
    const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
    const etcd = launch(
      binaries.etcd,
      [
        '--name=trainwatch',
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=trainwatch=${peerUrl}`,
        '--unsafe-no-fsync=true', // throwaway data: skip fsync, which dominates etcd latency on CI disks
        '--log-level=warn',
      ],
      join(dir, 'etcd.log'),
    );
    started.push(etcd);
    await waitFor('etcd', etcd, 30_000, async () => {
      const res = await fetch(`${etcdUrl}/health`);
      return res.ok && ((await res.json()) as { health?: string }).health === 'true';
    });

    const token = () => randomBytes(24).toString('hex');
    const adminToken = token();
    const trainwatchToken = token();
    const otherToken = token();
    // token,user,uid,"group1,group2"
    writeFileSync(
      join(dir, 'tokens.csv'),
      [
        `${adminToken},admin,uid-admin,"system:masters"`,
        `${trainwatchToken},trainwatch-remediation,uid-trainwatch,"trainwatch:remediation"`,
        `${otherToken},someone-else,uid-someone-else`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    });
    writeFileSync(join(dir, 'sa.pub'), publicKey);
    writeFileSync(join(dir, 'sa.key'), privateKey, { mode: 0o600 });

    const certDir = join(dir, 'certs');
    const apiserver = launch(
      binaries.kubeApiserver,
      [
        `--etcd-servers=${etcdUrl}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${apiPort}`,
        `--cert-dir=${certDir}`, // self-signed serving cert for 127.0.0.1, with its CA, written here
        `--token-auth-file=${join(dir, 'tokens.csv')}`,
        '--anonymous-auth=false',
        '--authorization-mode=RBAC',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${join(dir, 'sa.pub')}`,
        `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
        '--service-cluster-ip-range=10.0.0.0/24',
        // Nothing here needs these, and each costs start-up time or background work.
        '--enable-priority-and-fairness=false',
        '--endpoint-reconciler-type=none',
        '--profiling=false',
      ],
      join(dir, 'kube-apiserver.log'),
    );
    started.push(apiserver);
    const url = `https://127.0.0.1:${apiPort}`;
    const kube: Kube = { url, ca: '', adminToken, trainwatchToken, otherToken, dir, stop };
    const certFile = join(certDir, 'apiserver.crt');
    await waitFor('kube-apiserver', apiserver, readyTimeoutMs, async () => {
      if (!existsSync(certFile)) return false;
      kube.ca = readFileSync(certFile, 'utf8');
      const res = await kubeRequest<unknown>(kube, adminToken, 'GET', '/readyz');
      return res.status === 200 && res.body === 'ok';
    });
    return kube;
  } catch (error) {
    await stop();
    throw error;
  }
}

function crd(group: string, kind: string, plural: string) {
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
        },
      ],
    },
  };
}

/** Minimal CRDs (written for trainwatch, not the operators' own) for the training jobs it remediates. */
export const TRAINING_JOB_CRDS = [
  crd('kubeflow.org', 'PyTorchJob', 'pytorchjobs'),
  crd('ray.io', 'RayJob', 'rayjobs'),
];

/** Creates TRAINING_JOB_CRDS (an existing one is left alone) and waits until each is Established and served. */
export async function applyCrds(kube: Kube, timeoutMs = 30_000): Promise<void> {
  const base = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  for (const def of TRAINING_JOB_CRDS) {
    const res = await kubeRequest(kube, kube.adminToken, 'POST', base, def);
    if (res.status !== 201 && res.status !== 409) {
      throw new Error(`creating CRD ${def.metadata.name}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (const def of TRAINING_JOB_CRDS) {
    const { group, names } = def.spec;
    for (;;) {
      const got = await kubeRequest<{ status?: { conditions?: { type: string; status: string }[] } }>(
        kube,
        kube.adminToken,
        'GET',
        `${base}/${def.metadata.name}`,
      );
      const established = got.body.status?.conditions?.some(
        (c) => c.type === 'Established' && c.status === 'True',
      );
      // Established can come a moment before the new resource's handler answers; list it to be sure.
      if (
        established &&
        (await kubeRequest(kube, kube.adminToken, 'GET', `/apis/${group}/v1/${names.plural}`)).status === 200
      ) {
        break;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `CRD ${def.metadata.name} not established in ${timeoutMs / 1000} s: ${JSON.stringify(got.body)}`,
        );
      }
      await sleep(200);
    }
  }
}

/** A request as the cluster admin (the operator, the kubelet, the cluster's owner); an error status throws. */
export async function asAdmin(
  kube: Kube,
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
): Promise<Record<string, unknown>> {
  const res = await kubeRequest(kube, kube.adminToken, method, path, body, contentType);
  if (res.status >= 300)
    throw new Error(`admin ${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A namespace, with the default ServiceAccount a controller manager would make (none runs here). */
export async function createNamespace(kube: Kube, name: string): Promise<void> {
  await asAdmin(kube, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  });
  await asAdmin(kube, 'POST', `/api/v1/namespaces/${name}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'default' },
  });
}

/** The path an RBAC object (Role, RoleBinding, ClusterRole, ClusterRoleBinding) is created at. */
export function rbacPath(o: { kind: string; metadata: { namespace?: string } }): string {
  const base = '/apis/rbac.authorization.k8s.io/v1';
  const plural = `${o.kind.toLowerCase()}s`;
  return o.metadata.namespace ? `${base}/namespaces/${o.metadata.namespace}/${plural}` : `${base}/${plural}`;
}

/** An object of docs/eks-rbac.yaml (Role, RoleBinding, ClusterRole, ClusterRoleBinding). */
export interface RbacObject {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly [field: string]: unknown;
}

/** docs/eks-rbac.yaml's objects: the RBAC the docs give, applied as is by the tests and the local mode. */
export const EKS_RBAC: readonly RbacObject[] = parseAllDocuments(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'eks-rbac.yaml'), 'utf8'),
).map((d) => d.toJS() as RbacObject);

/** A pod as its operator makes it and its kubelet reports it (no kubelet runs here). */
export interface PodSpec {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly node?: string;
  readonly status?: Record<string, unknown>;
}

/** Creates a training pod (as its operator), then writes its status (as its kubelet). */
export async function createPod(
  kube: Kube,
  ns: string,
  { name, labels, node, status }: PodSpec,
): Promise<void> {
  await asAdmin(kube, 'POST', `/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: {
      nodeName: node,
      restartPolicy: 'OnFailure',
      automountServiceAccountToken: false,
      containers: [{ name: 'pytorch', image: 'trainer:2.5' }],
    },
  });
  if (status)
    await asAdmin(
      kube,
      'PATCH',
      `/api/v1/namespaces/${ns}/pods/${name}/status`,
      { status },
      'application/merge-patch+json',
    );
}
