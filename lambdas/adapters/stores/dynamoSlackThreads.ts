import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SlackThread } from '../../core/slack/index.js';
import { liveKey } from './dynamoStateStore.js';

/** A thread as stored: `rev` counts its writes, so a write can be conditional on the one read. */
export type StoredThread = SlackThread & { readonly rev: number };

/** What the run item says about its thread: whether the live item exists, and its thread if any. */
export interface ThreadRead {
  readonly live: boolean;
  readonly thread?: StoredThread;
}

/**
 * The Slack app's thread of a run, on the run's live item (`slackThread`). Every write is conditional on
 * the thread read (its `rev`), so of two senders racing to open a thread one claims it and posts the parent,
 * and the other replies in it; every write bumps the run's version too, so no writer holding an older copy
 * of the item can put it back without the thread.
 */
export class DynamoSlackThreads {
  constructor(
    private readonly table: string,
    private readonly ddb: DynamoDBDocumentClient,
  ) {}

  async get(runId: string): Promise<ThreadRead> {
    const res = await this.ddb.send(
      new BatchGetCommand({
        RequestItems: {
          [this.table]: {
            Keys: [liveKey(runId)],
            ConsistentRead: true,
            ProjectionExpression: 'pk, #t',
            ExpressionAttributeNames: { '#t': 'slackThread' },
          },
        },
      }),
    );
    const item = res.Responses?.[this.table]?.[0];
    return item ? { live: true, thread: item.slackThread as StoredThread | undefined } : { live: false };
  }

  /** Writes `next` (its `rev` one above `readRev`) unless the thread changed since it was read. */
  async put(
    runId: string,
    next: SlackThread,
    readRev: number | undefined,
  ): Promise<StoredThread | undefined> {
    const stored: StoredThread = { ...next, rev: (readRev ?? 0) + 1 };
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: liveKey(runId),
          UpdateExpression: 'SET #t = :t, #v = #v + :one',
          ConditionExpression:
            readRev === undefined
              ? 'attribute_exists(pk) AND attribute_not_exists(#t)'
              : 'attribute_exists(pk) AND #t.#rev = :rev',
          ExpressionAttributeNames: {
            '#t': 'slackThread',
            '#v': 'version',
            ...(readRev === undefined ? {} : { '#rev': 'rev' }),
          },
          ExpressionAttributeValues: {
            ':t': stored,
            ':one': 1,
            ...(readRev === undefined ? {} : { ':rev': readRev }),
          },
        }),
      );
      return stored;
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return undefined;
      throw e;
    }
  }
}
