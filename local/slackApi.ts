import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message in the local Slack's channel: a parent, or a reply in a thread. */
export interface SlackMessage {
  readonly channel: string;
  readonly ts: string;
  readonly thread_ts?: string;
  readonly reply_broadcast?: boolean;
  text: string;
  blocks: unknown[];
  /** How many times chat.update replaced it. */
  edits: number;
}

/** What the local Slack saw, for the local mode's output. */
export type SlackEvent =
  | { readonly kind: 'post' | 'reply' | 'update'; readonly message: SlackMessage }
  | { readonly kind: 'response'; readonly body: Record<string, unknown> };

/**
 * A local Slack Web API (chat.postMessage, chat.update, conversations.history and .replies,
 * usergroups.users.list) and response URLs, over real HTTP: the official @slack/web-api client points
 * at `apiUrl`, as trainwatch's Slack app and the tests do. Checks the bot token like Slack.
 */
export interface SlackApi {
  /** The Web API base URL (`slackApiUrl`), ending in `/`. */
  readonly apiUrl: string;
  readonly token: string;
  readonly messages: SlackMessage[];
  /** Every Web API call, in order: method and arguments. */
  readonly calls: { method: string; args: Record<string, unknown> }[];
  /** Bodies posted to response URLs, in order, with the URL's id. */
  readonly responses: { id: string; body: Record<string, unknown> }[];
  /** A new response URL (as Slack puts one in each interaction payload). */
  responseUrl(): string;
  /** Makes user group `id` have these members. */
  setGroup(id: string, users: readonly string[]): void;
  /** The next `times` calls of `method` answer `ok: false` with `error` (HTTP 429 for `ratelimited`). */
  failNext(method: string, error: string, times?: number): void;
  /** chat.postMessage waits this long before answering (to widen races). */
  delayPosts(ms: number): void;
  /** Top-level messages (parents and broadcast replies), oldest first. */
  channelMessages(channel: string): SlackMessage[];
  /** A thread: its parent, then its replies, oldest first. */
  thread(channel: string, ts: string): SlackMessage[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The Web API takes JSON or a form whose structured fields are JSON text, as @slack/web-api sends them. */
function argsOf(req: IncomingMessage, raw: string): Record<string, unknown> {
  if ((req.headers['content-type'] ?? '').includes('application/json')) return raw ? JSON.parse(raw) : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    if (v === 'true' || v === 'false') out[k] = v === 'true';
    else if (/^[[{]/.test(v)) {
      try {
        out[k] = JSON.parse(v);
      } catch {
        out[k] = v;
      }
    } else out[k] = v;
  }
  return out;
}

/** Starts the local Slack on a free loopback port; `onEvent` sees each post, reply, update and response. */
export async function startSlackApi(
  onEvent: (e: SlackEvent) => void = () => {},
  token = 'xoxb-local-0000-trainwatch',
): Promise<SlackApi> {
  const messages: SlackMessage[] = [];
  const calls: SlackApi['calls'] = [];
  const responses: SlackApi['responses'] = [];
  const groups = new Map<string, readonly string[]>();
  const failures: { method: string; error: string }[] = [];
  let postDelay = 0;
  let clock = Math.floor(Date.now() / 1000);
  let seq = 0;
  let urls = 0;
  const nextTs = () => `${clock}.${String(++seq).padStart(6, '0')}`;
  const find = (channel: unknown, ts: unknown) => messages.find((m) => m.channel === channel && m.ts === ts);

  const methods: Record<
    string,
    (a: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>
  > = {
    'chat.postMessage': async (a) => {
      if (postDelay) await new Promise((r) => setTimeout(r, postDelay));
      const channel = String(a.channel ?? '');
      if (!/^[CG][A-Z0-9]+$/.test(channel)) return { ok: false, error: 'channel_not_found' };
      const thread = a.thread_ts === undefined ? undefined : String(a.thread_ts);
      if (thread !== undefined && !find(channel, thread)) return { ok: false, error: 'thread_not_found' };
      const m: SlackMessage = {
        channel,
        ts: nextTs(),
        ...(thread ? { thread_ts: thread } : {}),
        ...(thread && a.reply_broadcast === true ? { reply_broadcast: true } : {}),
        text: String(a.text ?? ''),
        blocks: (a.blocks as unknown[]) ?? [],
        edits: 0,
      };
      messages.push(m);
      onEvent({ kind: thread ? 'reply' : 'post', message: m });
      return { ok: true, channel, ts: m.ts, message: m };
    },
    'chat.update': (a) => {
      const m = find(a.channel, a.ts);
      if (!m) return { ok: false, error: 'message_not_found' };
      m.text = String(a.text ?? '');
      m.blocks = (a.blocks as unknown[]) ?? [];
      m.edits++;
      onEvent({ kind: 'update', message: m });
      return { ok: true, channel: m.channel, ts: m.ts };
    },
    'conversations.history': (a) => ({
      ok: true,
      messages: messages.filter((m) => m.channel === a.channel && (!m.thread_ts || m.reply_broadcast)),
    }),
    'conversations.replies': (a) => {
      const parent = find(a.channel, a.ts);
      if (!parent) return { ok: false, error: 'thread_not_found' };
      return {
        ok: true,
        messages: [parent, ...messages.filter((m) => m.channel === a.channel && m.thread_ts === a.ts)],
      };
    },
    'usergroups.users.list': (a) => {
      const users = groups.get(String(a.usergroup));
      return users ? { ok: true, users } : { ok: false, error: 'no_such_subteam' };
    },
  };

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path.startsWith('/response/')) {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw);
      } catch {
        return json(400, { ok: false, error: 'invalid_payload' });
      }
      responses.push({ id: path.slice('/response/'.length), body });
      onEvent({ kind: 'response', body });
      return json(200, { ok: true });
    }
    const method = path.replace(/^\/api\//, '');
    const args = argsOf(req, raw);
    calls.push({ method, args });
    if (req.headers.authorization !== `Bearer ${token}`)
      return json(200, { ok: false, error: 'invalid_auth' });
    const failure = failures.findIndex((f) => f.method === method);
    if (failure >= 0) {
      const [f] = failures.splice(failure, 1);
      if (f!.error === 'ratelimited') return res.writeHead(429, { 'retry-after': '1' }).end();
      return json(200, { ok: false, error: f!.error });
    }
    const handle = methods[method];
    if (!handle) return json(200, { ok: false, error: 'unknown_method' });
    clock = Math.max(clock, Math.floor(Date.now() / 1000));
    return json(200, await handle(args));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    apiUrl: `${base}/api/`,
    token,
    messages,
    calls,
    responses,
    responseUrl: () => `${base}/response/${++urls}`,
    setGroup: (id, users) => void groups.set(id, users),
    failNext(method, error, times = 1) {
      for (let n = 0; n < times; n++) failures.push({ method, error });
    },
    delayPosts(ms) {
      postDelay = ms;
    },
    channelMessages: (channel) =>
      messages.filter((m) => m.channel === channel && (!m.thread_ts || m.reply_broadcast)),
    thread: (channel, ts) =>
      messages.filter((m) => m.channel === channel && (m.ts === ts || m.thread_ts === ts)),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
