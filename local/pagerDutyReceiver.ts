import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A PagerDuty Events API v2 event as received (only the fields we look at are typed). */
export interface ReceivedPagerDutyEvent {
  readonly routing_key?: string;
  readonly event_action?: string;
  readonly dedup_key?: string;
  readonly payload?: {
    summary?: string;
    severity?: string;
    source?: string;
    custom_details?: Record<string, unknown>;
  };
  readonly [k: string]: unknown;
}

/** A local stand-in for PagerDuty's Events API v2 (`/v2/enqueue`): the local mode's and the tests'. */
export interface PagerDutyReceiver {
  /** The endpoint to configure as TRAINWATCH_PAGERDUTY_URL (loopback). */
  readonly url: string;
  /** Every event posted, in order, failed tries included. */
  readonly received: ReceivedPagerDutyEvent[];
  /** Answers the next `times` requests with `status` (400 invalid event, 429 throttled, 500 …). */
  failNext(status: number, times?: number): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Validates like PagerDuty does the parts we rely on; returns the problem, or undefined. */
function invalid(e: ReceivedPagerDutyEvent): string | undefined {
  if (typeof e.routing_key !== 'string' || e.routing_key.length === 0) return 'routing_key missing';
  if (!['trigger', 'acknowledge', 'resolve'].includes(String(e.event_action))) return 'bad event_action';
  if (e.event_action !== 'trigger') return e.dedup_key ? undefined : 'dedup_key missing';
  const p = e.payload;
  if (!p?.summary || !p.source || !['critical', 'error', 'warning', 'info'].includes(String(p.severity)))
    return 'payload.summary, source and severity are required';
  return undefined;
}

/** Starts the endpoint on a free loopback port; `onEvent` gets each event it accepted. */
export async function startPagerDutyReceiver(
  onEvent: (event: ReceivedPagerDutyEvent) => void = () => {},
): Promise<PagerDutyReceiver> {
  const received: ReceivedPagerDutyEvent[] = [];
  const failures: number[] = [];
  const server = createServer(async (req, res) => {
    let event: ReceivedPagerDutyEvent = {};
    try {
      event = JSON.parse(await readBody(req)) as ReceivedPagerDutyEvent;
    } catch {
      // PagerDuty answers 400 to a body that is not JSON.
    }
    received.push(event);
    const problem = invalid(event);
    const status = failures.shift() ?? (problem ? 400 : 202);
    if (status === 202) onEvent(event);
    const body =
      status === 202
        ? { status: 'success', message: 'Event processed', dedup_key: event.dedup_key }
        : { status: 'invalid event', message: problem ?? 'injected failure', errors: [problem ?? 'failure'] };
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v2/enqueue`,
    received,
    failNext(status, times = 1) {
      for (let n = 0; n < times; n++) failures.push(status);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** One event as terminal text: the action, the dedup key and, for a trigger, severity and summary. */
export function renderPagerDuty(e: ReceivedPagerDutyEvent): string {
  const head = `PagerDuty ${String(e.event_action).toUpperCase()} dedup_key=${e.dedup_key}`;
  if (e.event_action !== 'trigger') return head;
  return `${head}\n  severity=${e.payload?.severity} source=${e.payload?.source}\n  ${e.payload?.summary}`;
}
