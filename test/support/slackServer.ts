import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local stand-in for a Slack incoming webhook. */
export interface SlackServer {
  /** The webhook URL to configure (loopback). */
  readonly url: string;
  /** Every JSON body posted, in order, whatever the answer was (failed tries included). */
  readonly received: unknown[];
  /** Answer the next `times` requests with `status` and `body` (Slack's style: a short code such as `no_service`). */
  failNext(status: number, body?: string, times?: number): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts a Slack webhook stand-in on 127.0.0.1 and a free port; it answers `200 ok` unless told to fail. */
export async function startSlackServer(): Promise<SlackServer> {
  const received: unknown[] = [];
  const failures: { status: number; body: string }[] = [];

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // Slack would answer 400 invalid_payload; keep the raw text so a test can see what was sent.
    }
    received.push(body);
    const failure = failures.shift();
    const status = failure?.status ?? (typeof body === 'string' ? 400 : 200);
    const text = failure?.body ?? (status === 200 ? 'ok' : 'invalid_payload');
    res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/services/T000/B000/XXXX`,
    received,
    failNext(status, body = 'error', times = 1) {
      for (let i = 0; i < times; i++) failures.push({ status, body });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
