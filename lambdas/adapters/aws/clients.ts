import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type SdkOptions, sdkConfig } from './clientConfig.js';
import { type ClientSource, once } from './lazy.js';

export { type SdkOptions, sdkConfig };

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

/**
 * The clients a function uses. S3 and DynamoDB serve its first request, so they are made at cold start;
 * the alert channels' and SSM's are made on first use, so a sweep with nothing to say never loads them.
 */
export interface Clients {
  readonly s3: S3Client;
  readonly ddb: DynamoDBDocumentClient;
  readonly sns: ClientSource<SNSClient>;
  readonly events: ClientSource<EventBridgeClient>;
  readonly ssm: ClientSource<SSMClient>;
  readonly counter: RequestCounter;
}

type Countable = { middlewareStack: { add: (...a: never[]) => void } };

/** Adds `client`'s requests to `counter` under `service`; returns the client. */
export function counted<T extends Countable>(client: T, service: string, counter: RequestCounter): T {
  // Each SDK attempt (retries too) passes the finalize step once: that's a request AWS bills.
  (client.middlewareStack as { add: (mw: unknown, opts: unknown) => void }).add(
    (next: (a: unknown) => Promise<unknown>, context: { commandName?: string }) => (args: unknown) => {
      counter.add(service, context.commandName?.replace(/Command$/, '') ?? 'unknown');
      return next(args);
    },
    { step: 'finalizeRequest', name: 'trainwatchRequestCounter' },
  );
  return client;
}

/** S3 and DynamoDB clients (path-style S3 on an emulator; the document client drops undefined values). */
export function storageClients(o: SdkOptions, counter: RequestCounter): Pick<Clients, 's3' | 'ddb'> {
  const base = sdkConfig(o);
  const s3 = counted(new S3Client({ ...base, forcePathStyle: Boolean(o.endpoint) }), 'S3', counter);
  const dynamo = counted(new DynamoDBClient(base), 'DynamoDB', counter);
  const ddb = DynamoDBDocumentClient.from(dynamo, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  });
  return { s3, ddb };
}

/** The clients of one Lambda function, configured once per cold start; SNS, EventBridge and SSM lazily. */
export function lambdaClients(o: SdkOptions): Clients {
  const counter = new RequestCounter();
  const base = sdkConfig(o);
  return {
    ...storageClients(o, counter),
    sns: once(async () => counted(new (await import('@aws-sdk/client-sns')).SNSClient(base), 'SNS', counter)),
    events: once(async () =>
      counted(
        new (await import('@aws-sdk/client-eventbridge')).EventBridgeClient(base),
        'EventBridge',
        counter,
      ),
    ),
    ssm: once(async () => counted(new (await import('@aws-sdk/client-ssm')).SSMClient(base), 'SSM', counter)),
    counter,
  };
}
