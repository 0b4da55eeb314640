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
  /** Never more faults than this in a row for the same request (so a caller's retries get through). @default 2 */
  readonly maxInARow?: number;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** A number in [0, 1) from the seed and the request: the same requests meet the same faults, whatever their order. */
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
 * Starts the proxy. Faults are decided per request from a hash of (seed, method, path, target, body,
 * how many times this same request came before), so a run is reproducible even with concurrent callers,
 * and bounded: at most `maxInARow` faults in a row for one request.
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
    const name = String(req.headers['x-amz-target'] ?? `${req.method} ${req.url?.split('?')[0]}`);
    const content = `${req.method} ${req.url} ${req.headers['x-amz-target'] ?? ''} ${body.toString('utf8')}`;
    const n = seen.get(content) ?? 0;
    seen.set(content, n + 1);
    const x = draw(opts.seed, `${content}#${n}`);
    const row = inARow.get(content) ?? 0;
    const fault =
      calm || row >= (opts.maxInARow ?? 2)
        ? 'none'
        : x < opts.refuse
          ? 'refuse'
          : x < opts.refuse + opts.lose
            ? 'lose'
            : 'none';
    inARow.set(content, fault === 'none' ? 0 : row + 1);
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
