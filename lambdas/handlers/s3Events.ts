import * as z from 'zod';

/** The part of an EventBridge `Object Created` event from S3 that we use. */
const ObjectCreated = z.object({
  source: z.literal('aws.s3'),
  'detail-type': z.literal('Object Created'),
  detail: z.object({ bucket: z.object({ name: z.string() }), object: z.object({ key: z.string() }) }),
});

/** An SQS batch whose bodies are EventBridge events (the local mode routes S3 events this way). */
const SqsBatch = z.object({ Records: z.array(z.object({ body: z.string() })) });

/** Object keys from an EventBridge S3 event, or from an SQS batch of them; malformed ones are reported. */
export function objectKeys(event: unknown): { keys: { bucket: string; key: string }[]; invalid: string[] } {
  const batch = SqsBatch.safeParse(event);
  const events: unknown[] = batch.success ? batch.data.Records.map((r) => safeJson(r.body)) : [event];
  const keys: { bucket: string; key: string }[] = [];
  const invalid: string[] = [];
  for (const e of events) {
    const parsed = ObjectCreated.safeParse(e);
    if (parsed.success)
      keys.push({ bucket: parsed.data.detail.bucket.name, key: parsed.data.detail.object.key });
    else invalid.push(parsed.error.issues[0]?.message ?? 'not an S3 Object Created event');
  }
  return { keys, invalid };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
