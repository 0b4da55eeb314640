// One sweep in a fresh process (as one Lambda invocation), so peak memory is the sweep's own.
// Prints one JSON line: the report, peak RSS, and the sizes of what the sweep read from DynamoDB.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { LIVE_SHARDS } from '../lambdas/adapters/stores/dynamoStateStore.js';
import { runSweep } from '../lambdas/handlers/sweep.js';
import { createApp } from '../lambdas/wiring/app.js';

const now = Number(process.argv[2] ?? Date.now());
const app = createApp(process.env);
const report = await runSweep(app, now);
const counts = Object.fromEntries(app.clients.counter.counts);
const maxRssMb = process.resourceUsage().maxRSS / 1024;

// Item sizes (not counted above): DynamoDB bills writes per started KB and a Query's reads per 4 KB of
// the items it returns (eventually consistent: half). The sweep's reads are the live partitions.
let items = 0;
let bytes = 0;
for (let shard = 0; shard < LIVE_SHARDS; shard++) {
  let key: Record<string, unknown> | undefined;
  do {
    const page = await app.clients.ddb.send(
      new QueryCommand({
        TableName: app.config.table,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': `LIVE#${shard}` },
        ExclusiveStartKey: key,
      }),
    );
    for (const item of page.Items ?? []) {
      items++;
      bytes += Buffer.byteLength(JSON.stringify(item));
    }
    key = page.LastEvaluatedKey;
  } while (key);
}
console.log(
  JSON.stringify({
    report: { ...report, ignoredKeys: report.ignoredKeys.length },
    counts,
    maxRssMb,
    items,
    bytes,
  }),
);
