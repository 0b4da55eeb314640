import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy did, per kind of request (`DynamoDB_20120810.PutItem`, `POST /`, …). */
export interface FaultStats {
  forwarded: number;
  /** Answered 500 without forwarding: the service never saw the request. */
  refused: number;
  /** Forwarded, the service did the work, then the caller got a 500 instead of the answer. */
  lost: number;
  readonly byRequest: Map<string, { refused: number; lost: number }>;
}

/** A loopback HTTP proxy in front of one service (moto, a webhook) that refuses and loses answers. */
export interface FaultProxy {
  readonly url: string;
  readonly stats: FaultStats;
  /** Stop injecting faults (the proxy keeps forwarding). */
  calm(): void;
  close(): Promise<void>;
}

export interface FaultOptions {
  readonly seed: number;
  /** Share of requests refused. */
  readonly refuse: number;
  /** Share of requests whose answer is lost. */
  readonly lose: number;
  /** Never more faults than this in a row for one kind of request (so a caller's retries get through). @default 2 */
  readonly maxInARow?: number;
  /** S3 path-style requests: the first path segment is the (random) bucket name; leave it out of the key. */
  readonly stripFirstSegment?: boolean;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** A number in [0, 1) from the seed, the kind of request and how many of that kind came before. */
function draw(seed: number, key: string): number {
  return createHash('sha256').update(`${seed}\n${key}`).digest().readUInt32BE(0) / 2 ** 32;
}

function errorBody(req: IncomingMessage): { type: string; body: string } {
  // AWS query protocols (SNS, SQS) speak XML; JSON protocols (DynamoDB, EventBridge) JSON; S3 its own XML.
  if (String(req.headers['content-type']).includes('x-www-form-urlencoded'))
    return {
      type: 'text/xml',
      body: '<ErrorResponse><Error><Type>Receiver</Type><Code>InternalFailure</Code><Message>injected</Message></Error></ErrorResponse>',
    };
  if (req.headers['x-amz-target'])
    return { type: 'application/x-amz-json-1.0', body: '{"__type":"InternalFailure","message":"injected"}' };
  return {
    type: 'application/xml',
    body: '<Error><Code>InternalError</Code><Message>injected</Message></Error>',
  };
}

/**
 * Starts the proxy. Faults are decided per request from a hash of (seed, kind of request, how many of
 * that kind came before): with a caller that sends each kind in a fixed order (one sweep at concurrency
 * 1), the same faults fall on the same requests in every run. Bounded: at most `maxInARow` faults in a
 * row for one kind, so the SDK's three attempts always get one through.
 */
export async function startFaultProxy(target: string, opts: FaultOptions): Promise<FaultProxy> {
  const upstream = new URL(target);
  const seen = new Map<string, number>();
  const inARow = new Map<string, number>();
  let calm = false;
  const stats: FaultStats = { forwarded: 0, refused: 0, lost: 0, byRequest: new Map() };
  const count = (kind: 'refused' | 'lost', name: string) => {
    stats[kind]++;
    const s = stats.byRequest.get(name) ?? { refused: 0, lost: 0 };
    s[kind]++;
    stats.byRequest.set(name, s);
  };

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    // The request's kind, without the test's random names (the bucket, in S3 paths): DynamoDB_20120810.PutItem,
    // SNS Publish, `GET /training-runs/f-1/metadata.json`, `POST /v2/enqueue`.
    const path = (req.url ?? '/').split('?')[0]!;
    const action = /(?:^|&)Action=([A-Za-z]+)/.exec(body.toString('utf8'))?.[1];
    const name = String(
      req.headers['x-amz-target'] ??
        (action
          ? `query.${action}`
          : `${req.method} ${opts.stripFirstSegment ? path.replace(/^\/[^/]+/, '') || '/' : path}`),
    );
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    const x = draw(opts.seed, `${name}#${n}`);
    const row = inARow.get(name) ?? 0;
    const fault =
      calm || row >= (opts.maxInARow ?? 2)
        ? 'none'
        : x < opts.refuse
          ? 'refuse'
          : x < opts.refuse + opts.lose
            ? 'lose'
            : 'none';
    inARow.set(name, fault === 'none' ? 0 : row + 1);
    const fail = () => {
      const e = errorBody(req);
      res.writeHead(500, { 'content-type': e.type }).end(e.body);
    };
    if (fault === 'refuse') {
      count('refused', name);
      return fail();
    }
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      async (answer) => {
        const answerBody = await readBody(answer);
        stats.forwarded++;
        if (fault === 'lose') {
          count('lost', name);
          return fail();
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers).end(answerBody);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    forward.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname === '/' ? '' : upstream.pathname}`,
    stats,
    calm: () => {
      calm = true;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
