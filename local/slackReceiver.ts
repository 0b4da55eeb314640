import { createServer, type IncomingMessage } from 'node:http';

/** A local Slack incoming-webhook endpoint: the local mode's alerts arrive here over real HTTP. */
export interface SlackReceiver {
  readonly url: string;
  readonly received: unknown[];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the endpoint on a free loopback port; `onMessage` gets each posted payload. */
export async function startSlackReceiver(onMessage: (payload: unknown) => void): Promise<SlackReceiver> {
  const received: unknown[] = [];
  const server = createServer(async (req, res) => {
    try {
      const payload: unknown = JSON.parse(await body(req));
      received.push(payload);
      onMessage(payload);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    } catch {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_payload');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/services/T000/B000/local`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
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
    else if (b.type === 'actions')
      out.push(...(b.elements ?? []).map((e) => `┃ [${textOf(e.text)}] ${e.url}`));
  }
  return out.join('\n');
}
