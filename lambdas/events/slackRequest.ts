import * as z from 'zod/mini';
import '../core/base/zod.js';

/** A request as the Slack endpoint's function URL hands it over: lower-case headers and the raw body. */
export interface HttpRequest {
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Exactly the bytes Slack signed (decoded from base64 where the function URL encoded them). */
  readonly rawBody: string;
}

/** The parts of a function URL event (payload format 2.0) the endpoint reads. */
export function httpRequest(event: unknown): HttpRequest {
  const e = (event ?? {}) as { headers?: Record<string, string>; body?: string; isBase64Encoded?: boolean };
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(e.headers ?? {})) headers[k.toLowerCase()] = v;
  const body = e.body ?? '';
  return { headers, rawBody: e.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body };
}

const user = z.object({
  id: z.string().check(z.regex(/^[UW][A-Z0-9]{2,20}$/)),
  username: z.optional(z.string()),
  name: z.optional(z.string()),
});

/** A button click (`block_actions`), with what the endpoint reads of it. */
export const BlockActions = z.object({
  type: z.literal('block_actions'),
  user,
  trigger_id: z.optional(z.string()),
  response_url: z.optional(z.string().check(z.regex(/^https?:\/\/\S+$/))),
  actions: z.array(
    z.object({
      action_id: z.string(),
      value: z.optional(z.string()),
      action_ts: z.optional(z.string()),
    }),
  ),
  message: z.optional(
    z.object({
      ts: z.optional(z.string()),
      text: z.optional(z.string()),
      blocks: z.optional(z.array(z.unknown())),
    }),
  ),
});
export type BlockActions = z.output<typeof BlockActions>;

/** A slash command (`/trainwatch status [RUN]`), form fields as Slack sends them. */
export interface SlashCommand {
  readonly command: string;
  readonly text: string;
  readonly userId: string;
  readonly userName?: string;
}

/** What a signed Slack request asks for, or why the endpoint does not understand it. */
export type SlackRequest =
  | { readonly kind: 'actions'; readonly payload: BlockActions }
  | { readonly kind: 'command'; readonly command: SlashCommand }
  | { readonly kind: 'unknown'; readonly problem: string };

/** Reads a form-encoded body: an interaction (`payload=` JSON) or a slash command (`command=…`). */
export function slackRequest(rawBody: string): SlackRequest {
  const form = new URLSearchParams(rawBody);
  const payload = form.get('payload');
  if (payload !== null) {
    let json: unknown;
    try {
      json = JSON.parse(payload);
    } catch {
      return { kind: 'unknown', problem: 'payload is not JSON' };
    }
    const r = z.safeParse(BlockActions, json);
    if (!r.success)
      return { kind: 'unknown', problem: `not a button click: ${r.error.issues[0]?.message ?? ''}` };
    return { kind: 'actions', payload: r.data };
  }
  const command = form.get('command');
  const userId = form.get('user_id');
  if (command !== null && userId !== null)
    return {
      kind: 'command',
      command: {
        command,
        text: form.get('text') ?? '',
        userId,
        userName: form.get('user_name') ?? undefined,
      },
    };
  return { kind: 'unknown', problem: 'neither an interaction nor a slash command' };
}
