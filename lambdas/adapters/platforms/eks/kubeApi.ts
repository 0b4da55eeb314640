// A minimal Kubernetes API client over node:https: bearer token, TLS pinned to the cluster's CA, JSON in and
// out, errors that carry the status and the server's Status message. The official @kubernetes/client-node
// bundles to ~2 MB and needs Node ≥ 22.19 (docs/EKS.md); trainwatch makes a handful of calls.
import { Agent, request } from 'node:https';
import { KubeApiError } from './errors.js';

/** Where the cluster is and how to prove who we are. */
export interface KubeCluster {
  /** The API server, `https://…` (EKS's `endpoint`). */
  readonly endpoint: string;
  /** The CA that signed the server's certificate: base64 of the PEM, as EKS gives it, or the PEM itself. */
  readonly certificateAuthority?: string;
  /** A bearer token; `fresh` asks for a new one (the last was refused with 401). */
  readonly token: (fresh?: boolean) => Promise<string>;
  /** Skips the server certificate check. Tests only. @default false */
  readonly insecure?: boolean;
  /** Per request, from connect to the last byte. @default 10000 */
  readonly timeoutMs?: number;
}

/** One call: `path` is built from checked names (names.ts); query values are encoded here. */
export interface KubeRequest {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  /** @default application/json (with a body) */
  readonly contentType?: string;
}

/** The calls a cluster answers: parsed JSON, or plain text (logs). */
export interface Kube {
  json<T>(req: KubeRequest): Promise<T>;
  text(req: KubeRequest): Promise<string>;
}

/** Answers larger than this are cut off and refused: no list trainwatch makes comes near it. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** The CA as PEM text, from base64 or PEM. */
export function caPem(certificateAuthority: string): string {
  const text = certificateAuthority.includes('-----BEGIN')
    ? certificateAuthority
    : Buffer.from(certificateAuthority, 'base64').toString('utf8');
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error('the cluster certificateAuthority is not a base64 PEM certificate');
  return text;
}

function queryText(query: KubeRequest['query'] = {}): string {
  const pairs = Object.entries(query)
    .filter((entry): entry is [string, string | number | boolean] => entry[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return pairs.length ? `?${pairs.join('&')}` : '';
}

/** The Status the server sent with an error, or the first line of whatever it sent. */
function statusOf(body: string): { reason?: string; message: string } {
  try {
    const s = JSON.parse(body) as { kind?: string; reason?: string; message?: string };
    if (s && typeof s === 'object' && (s.message || s.reason))
      return { reason: s.reason, message: s.message ?? s.reason ?? '' };
  } catch {
    // not JSON: an HTML or text error page in front of the server
  }
  return { message: body.trim().split('\n')[0]?.slice(0, 300) || '(empty answer)' };
}

/**
 * A client for one cluster. Connections are not kept alive (a Lambda frozen between invocations would find
 * them closed); the agent reuses TLS sessions instead.
 */
export function kubeApi(cluster: KubeCluster): Kube {
  const base = new URL(cluster.endpoint);
  if (base.protocol !== 'https:') throw new Error(`the cluster endpoint must be https: ${cluster.endpoint}`);
  const prefix = base.pathname.replace(/\/+$/, '');
  const agent = new Agent({
    ca: cluster.certificateAuthority ? caPem(cluster.certificateAuthority) : undefined,
    rejectUnauthorized: cluster.insecure !== true,
  });
  const timeoutMs = cluster.timeoutMs ?? 10_000;

  const once = (req: KubeRequest, token: string, accept: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body), 'utf8');
      const call = request(
        {
          agent,
          protocol: 'https:',
          hostname: base.hostname,
          port: base.port || 443,
          method: req.method,
          path: prefix + req.path + queryText(req.query),
          headers: {
            authorization: `Bearer ${token}`,
            accept,
            'user-agent': 'trainwatch',
            ...(payload && {
              'content-type': req.contentType ?? 'application/json',
              'content-length': payload.length,
            }),
          },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY_BYTES) res.destroy(new Error(`answer larger than ${MAX_BODY_BYTES} bytes`));
            else chunks.push(chunk);
          });
          res.on('error', reject);
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
        },
      );
      call.on('timeout', () => call.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      call.on('error', reject);
      call.end(payload);
    });

  const send = async (req: KubeRequest, accept: string): Promise<string> => {
    const where = { method: req.method, path: req.path };
    const attempt = async (fresh: boolean) => {
      const token = await cluster.token(fresh); // a failure to sign is the credentials', not the cluster's
      try {
        return await once(req, token, accept);
      } catch (e) {
        const code = (e as { code?: string }).code;
        const text = e instanceof Error ? e.message : String(e);
        const detail = code && !text.includes(code) ? `${text} (${code})` : text;
        throw new KubeApiError({ ...where, detail }, { cause: e });
      }
    };
    // 401 is decided before anything is done, so even a POST may be sent again: once, with a fresh token
    // (the last one expired, or was signed with keys since rotated).
    let res = await attempt(false);
    if (res.status === 401) res = await attempt(true);
    if (res.status >= 200 && res.status < 300) return res.body;
    const { reason, message } = statusOf(res.body);
    throw new KubeApiError({ ...where, status: res.status, reason, detail: message });
  };

  return {
    async json<T>(req: KubeRequest): Promise<T> {
      const body = await send(req, 'application/json');
      try {
        return JSON.parse(body) as T;
      } catch (e) {
        const detail = `the answer is not JSON: ${body.slice(0, 100)}`;
        throw new KubeApiError({ method: req.method, path: req.path, status: 200, detail }, { cause: e });
      }
    },
    text: (req) => send(req, 'text/plain, */*'),
  };
}
