import * as z from 'zod/mini';
import '../core/base/zod.js';
import { jsonOf, parseWith, SqsBatch } from './parse.js';

/** The part of an EventBridge `Object Created` event from S3 that we use. */
export const ObjectCreated = z.object({
  source: z.literal('aws.s3'),
  'detail-type': z.literal('Object Created'),
  detail: z.object({ bucket: z.object({ name: z.string() }), object: z.object({ key: z.string() }) }),
});

/** Object keys from an EventBridge S3 event, or from an SQS batch of them; malformed ones are reported. */
export function objectKeys(event: unknown): { keys: { bucket: string; key: string }[]; invalid: string[] } {
  const batch = parseWith(event, SqsBatch);
  const events = batch.ok
    ? batch.data.Records.map((r) => parseWith(r.body, jsonOf(ObjectCreated)))
    : [parseWith(event, ObjectCreated)];
  const keys: { bucket: string; key: string }[] = [];
  const invalid: string[] = [];
  for (const e of events) {
    if (e.ok) keys.push({ bucket: e.data.detail.bucket.name, key: e.data.detail.object.key });
    else invalid.push(e.problem);
  }
  return { keys, invalid };
}
