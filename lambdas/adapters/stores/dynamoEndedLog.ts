// The ended-runs log (`ENDED#<month>` / `<ended at>#<run id>`), written by StateStore.end and read by
// `trainwatch status --ended` and the local mode. Not imported by the functions: the sweep never reads it.
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';

/** One line of the ended-runs log: what `trainwatch status --ended` lists, newest first. */
export interface EndedRun {
  readonly runId: string;
  readonly state: string;
  readonly reason: string;
  readonly errorType?: string | null;
  readonly attempt: number;
  readonly endedAt: number;
  readonly folder: string;
}

/** The ended-runs log, newest first, at most `limit` lines, looking back at most `months` months. */
export async function listEnded(
  ddb: DynamoDBDocumentClient,
  table: string,
  limit: number,
  now: number,
  months = 4,
): Promise<EndedRun[]> {
  const out: EndedRun[] = [];
  const d = new Date(now);
  for (let m = 0; m < months && out.length < limit; m++) {
    const month = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - m, 1)).toISOString().slice(0, 7);
    let start: Record<string, unknown> | undefined;
    do {
      const res = await ddb.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': `ENDED#${month}` },
          ScanIndexForward: false,
          Limit: limit - out.length,
          ExclusiveStartKey: start,
        }),
      );
      for (const i of res.Items ?? []) {
        const { pk: _p, sk: _s, expiresAt: _e, ...line } = i;
        out.push(line as unknown as EndedRun);
      }
      start = res.LastEvaluatedKey;
    } while (start && out.length < limit);
  }
  return out;
}
