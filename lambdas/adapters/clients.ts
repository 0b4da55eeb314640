import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Counts AWS requests by `Service.Command`, for the sweep summary and the benchmark. */
export class RequestCounter {
  readonly counts = new Map<string, number>();
  add(service: string, command: string): void {
    const key = `${service}.${command}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
  /** Totals per service (S3, DynamoDB, ...). */
  byService(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [key, n] of this.counts) {
      const service = key.split('.')[0]!;
      out[service] = (out[service] ?? 0) + n;
    }
    return out;
  }
  total(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }
  reset(): void {
    this.counts.clear();
  }
}

/** The SDK clients trainwatch uses, configured once per cold start. */
export interface AwsClients {
  readonly s3: S3Client;
  readonly ddb: DynamoDBDocumentClient;
  readonly sns: SNSClient;
  readonly ssm: SSMClient;
  readonly events: EventBridgeClient;
  readonly sqs: SQSClient;
  readonly counter: RequestCounter;
}

type Countable = { middlewareStack: { add: (...a: never[]) => void } };

function count(client: Countable, service: string, counter: RequestCounter): void {
  // Each SDK attempt (retries too) passes the finalize step once: that's a request AWS bills.
  (client.middlewareStack as { add: (mw: unknown, opts: unknown) => void }).add(
    (next: (a: unknown) => Promise<unknown>, context: { commandName?: string }) => (args: unknown) => {
      counter.add(service, context.commandName?.replace(/Command$/, '') ?? 'unknown');
      return next(args);
    },
    { step: 'finalizeRequest', name: 'trainwatchRequestCounter' },
  );
}

/** Creates the clients for `region` (and a local emulator `endpoint`, if any). */
export function awsClients(opts: { region: string; endpoint?: string; maxAttempts?: number }): AwsClients {
  const base = {
    region: opts.region,
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    maxAttempts: opts.maxAttempts ?? 3,
  };
  const counter = new RequestCounter();
  const s3 = new S3Client({ ...base, forcePathStyle: Boolean(opts.endpoint) });
  const dynamo = new DynamoDBClient(base);
  const ddb = DynamoDBDocumentClient.from(dynamo, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  });
  const sns = new SNSClient(base);
  const ssm = new SSMClient(base);
  const events = new EventBridgeClient(base);
  const sqs = new SQSClient(base);
  count(s3, 'S3', counter);
  count(dynamo, 'DynamoDB', counter);
  count(sns, 'SNS', counter);
  count(ssm, 'SSM', counter);
  count(events, 'EventBridge', counter);
  count(sqs, 'SQS', counter);
  return { s3, ddb, sns, ssm, events, sqs, counter };
}
