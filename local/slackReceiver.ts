import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local Slack incoming-webhook endpoint: the local mode's alerts, and the tests', arrive here over real HTTP. */
export interface SlackReceiver {
  /** The webhook URL to configure (loopback). */
  readonly url: string;
  /** Every body posted, in order, whatever the answer was (failed tries included; non-JSON as text). */
  readonly received: unknown[];
  /** Answers the next `times` requests with `status` and `body` (Slack's style: `no_service`, ...). */
  failNext(status: number, body?: string, times?: number): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the endpoint on a free loopback port; `onMessage` gets each payload it accepted. */
export async function startSlackReceiver(
  onMessage: (payload: unknown) => void = () => {},
): Promise<SlackReceiver> {
  const received: unknown[] = [];
  const failures: { status: number; body: string }[] = [];
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    let payload: unknown = raw;
    try {
      payload = JSON.parse(raw);
    } catch {
      // Slack answers 400 invalid_payload; keep the raw text so a test can see what was sent.
    }
    received.push(payload);
    const failure = failures.shift();
    const status = failure?.status ?? (typeof payload === 'string' ? 400 : 200);
    if (status === 200) onMessage(payload);
    const text = failure?.body ?? (status === 200 ? 'ok' : 'invalid_payload');
    res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/services/T000/B000/local`,
    received,
    failNext(status, body = 'error', times = 1) {
      for (let n = 0; n < times; n++) failures.push({ status, body });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

const EMOJI: Record<string, string> = {
  ':hourglass_flowing_sand:': '⏳',
  ':large_green_circle:': '🟢',
  ':warning:': '⚠️ ',
  ':snail:': '🐌',
  ':alarm_clock:': '⏰',
  ':x:': '❌',
  ':white_check_mark:': '✅',
  ':arrows_counterclockwise:': '🔄',
};

// mrkdwn `*bold*` reads better without its stars in a terminal; entities go back to characters.
const plain = (t: string) =>
  t
    .replace(/\*([^*\n]+)\*/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const emoji = (t: string) => t.replace(/:[a-z_]+:/g, (m) => EMOJI[m] ?? m);

type Text = { text?: string };
type Element = { type?: string; text?: string | Text; url?: string };
type Block = { type: string; text?: Text; fields?: Text[]; elements?: Element[] };
const textOf = (t: Element['text']) => (typeof t === 'string' ? t : (t?.text ?? ''));

/** Renders a Block Kit message as terminal text, roughly as Slack shows it. */
export function renderSlack(payload: unknown): string {
  const blocks = ((payload as { blocks?: Block[] }).blocks ?? []) as Block[];
  const out: string[] = [];
  for (const b of blocks) {
    if (b.type === 'header') out.push(`┃ ${emoji(b.text?.text ?? '')}`);
    else if (b.type === 'section' && b.text)
      out.push(
        ...plain(b.text.text ?? '')
          .split('\n')
          .map((l) => `┃ ${l}`),
      );
    else if (b.type === 'section' && b.fields) {
      const cells = b.fields.map((f) => plain(f.text ?? '').replace('\n', ' '));
      for (let i = 0; i < cells.length; i += 2)
        out.push(`┃   ${cells[i]!.padEnd(44)} ${cells[i + 1] ?? ''}`.trimEnd());
    } else if (b.type === 'context') out.push(...(b.elements ?? []).map((e) => `┃ ${plain(textOf(e.text))}`));
    else if (b.type === 'actions') {
      // Link buttons with their URL, each on its line; the Slack app's on-call buttons side by side.
      const elements = b.elements ?? [];
      const buttons = elements.filter((e) => !e.url).map((e) => `[${textOf(e.text)}]`);
      if (buttons.length) out.push(`┃ ${buttons.join(' ')}`);
      out.push(...elements.filter((e) => e.url).map((e) => `┃ [${textOf(e.text)}] ${e.url}`));
    }
  }
  return out.join('\n');
}
