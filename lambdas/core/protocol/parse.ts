import * as z from 'zod/mini';
import '../base/zod.js';
import { MAX_JSON_BYTES, MAX_TEXT_BYTES } from './files.js';
import { type Metadata, MetadataSchema, type Progress, ProgressSchema } from './schemas.js';

/** A parsed file, or the one-line reason it is not usable. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });
const lossy = new TextDecoder('utf-8');

/** Parses a JSON protocol file named `file` against `schema`; every failure is a one-line problem, never a throw. */
export function parseJson<S extends z.ZodMiniType>(
  file: string,
  bytes: Uint8Array,
  schema: S,
): Parsed<z.infer<S>> {
  if (bytes.length === 0) return { ok: false, problem: `${file} is empty` };
  if (bytes.length > MAX_JSON_BYTES)
    return { ok: false, problem: `${file} is ${bytes.length} bytes (at most ${MAX_JSON_BYTES})` };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, problem: `${file} is not valid UTF-8` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `${file} is not valid JSON (${(e as Error).message})` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { ok: false, problem: `${file} must be a JSON object` };
  const result = z.safeParse(schema, json);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const path = issue.path.join('.') || '(root)';
    return { ok: false, problem: `${file}: ${path}: ${issue.message}` };
  }
  return { ok: true, value: result.data };
}

/** Parses `metadata.json`. */
export const parseMetadata = (bytes: Uint8Array): Parsed<Metadata> =>
  parseJson('metadata.json', bytes, MetadataSchema);

/** Parses `progress.json`. */
export const parseProgress = (bytes: Uint8Array): Parsed<Progress> =>
  parseJson('progress.json', bytes, ProgressSchema);

/** Decodes a text file (`_error`, the log tail) leniently: bad bytes become U+FFFD, the end is kept. */
export function decodeText(bytes: Uint8Array): string {
  const tail = bytes.length > MAX_TEXT_BYTES ? bytes.subarray(bytes.length - MAX_TEXT_BYTES) : bytes;
  return lossy.decode(tail).replace(/\r\n/g, '\n');
}

/** `_complete` may be empty, text, or a JSON object summary. */
export function parseComplete(bytes: Uint8Array): Record<string, unknown> | undefined {
  const text = decodeText(bytes).trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Epoch ms of a protocol timestamp: ISO-8601 (a zone-less one is UTC) or unix seconds/ms. */
export function toEpochMs(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value > 1e12 ? value : value * 1000;
  const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The last non-empty line of a text, trimmed to `max` characters. */
export function lastLine(text: string, max = 300): string | undefined {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line) return line.length > max ? `${line.slice(0, max - 1)}…` : line;
  }
  return undefined;
}
