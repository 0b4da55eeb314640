import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

/** A Slack request's idempotency item: `SLACK#<trigger id>` / `REQUEST`, kept a day (TTL). */
const key = (id: string) => ({ pk: `SLACK#${id}`, sk: 'REQUEST' });
const KEEP_S = 86_400;

/**
 * One item per Slack interaction, claimed by a conditional put before anything is done: Slack retries a
 * request it got no answer to within 3 s (`X-Slack-Retry-Num`), and the retry finds the claim and does
 * nothing. A claim whose work failed is marked `failed`, so a retry may do it then.
 */
export class DynamoSlackRequests {
  constructor(
    private readonly table: string,
    private readonly ddb: DynamoDBDocumentClient,
  ) {}

  /** True when this request is new (or its earlier try failed): the caller acts. */
  async claim(id: string, action: string, by: string, now: number): Promise<boolean> {
    try {
      await this.ddb.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...key(id),
            status: 'started',
            action,
            by,
            at: now,
            expiresAt: Math.floor(now / 1000) + KEEP_S,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR #s = :failed',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':failed': 'failed' },
        }),
      );
      return true;
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return false;
      throw e;
    }
  }

  /** Records how the request ended: `done`, or `failed` (a retry may try again). */
  async settle(id: string, status: 'done' | 'failed'): Promise<void> {
    await this.ddb.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key(id),
        UpdateExpression: 'SET #s = :s',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': status },
      }),
    );
  }
}
