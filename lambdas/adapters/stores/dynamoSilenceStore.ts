import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { OutboxEntry, Undelivered } from '../../core/model/record.js';
import type { Silence, SilenceStore } from '../../core/oncall/index.js';

/** Every silence shares one partition: one Query lists them, and IAM can name the key (`SILENCE`). */
export const SILENCE_PK = 'SILENCE';
/** An ended silence stays listed (and summarisable) this long, then its TTL removes it. */
const KEEP_ENDED_S = 7 * 86_400;

const lost = (e: unknown) => e instanceof ConditionalCheckFailedException;
const key = (id: string) => ({ pk: SILENCE_PK, sk: `SILENCE#${id}` });

/**
 * Silences in the runs' table (`SILENCE` / `SILENCE#id`, TTL on `expiresAt`): written by the CLI,
 * read once per sweep; the end-of-silence summary is claimed by one conditional write.
 */
export class DynamoSilenceStore implements SilenceStore {
  constructor(
    private readonly table: string,
    private readonly ddb: DynamoDBDocumentClient,
  ) {}

  async list(): Promise<Silence[]> {
    const out: Silence[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const res = await this.ddb.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': SILENCE_PK },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const { pk: _p, sk: _s, expiresAt: _e, summarizedAt: _a, ...rest } of res.Items ?? [])
        out.push(rest as unknown as Silence);
      start = res.LastEvaluatedKey;
    } while (start);
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  /** `trainwatch silence`: a new item (never overwrites one with the same id). */
  async putSilence(s: Silence): Promise<void> {
    await this.ddb.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...key(s.id), ...s, expiresAt: Math.floor(s.endsAt / 1000) + KEEP_ENDED_S },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  /** `trainwatch unsilence`: ends it now (the item stays, so its summary is still sent once). */
  async endSilence(id: string, by: string, now: number): Promise<boolean> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key(id),
          UpdateExpression: 'SET #end = :now, #rat = :now, #rby = :by, #exp = :exp',
          ConditionExpression: 'attribute_exists(pk) AND #end > :now',
          ExpressionAttributeNames: {
            '#end': 'endsAt',
            '#rat': 'removedAt',
            '#rby': 'removedBy',
            '#exp': 'expiresAt',
          },
          ExpressionAttributeValues: {
            ':now': now,
            ':by': by,
            ':exp': Math.floor(now / 1000) + KEEP_ENDED_S,
          },
        }),
      );
      return true;
    } catch (e) {
      if (lost(e)) return false;
      throw e;
    }
  }

  async claimSummary(id: string, entry: OutboxEntry | null, now: number): Promise<boolean> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key(id),
          UpdateExpression: `SET #at = :now${entry ? ', #sum = :e' : ''}`,
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#at)',
          ExpressionAttributeNames: { '#at': 'summarizedAt', ...(entry ? { '#sum': 'summary' } : {}) },
          ExpressionAttributeValues: { ':now': now, ...(entry ? { ':e': entry } : {}) },
        }),
      );
      return true;
    } catch (e) {
      if (lost(e)) return false;
      throw e;
    }
  }

  async retakeSummary(id: string, entry: OutboxEntry, leaseRead: number): Promise<boolean> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key(id),
          UpdateExpression: 'SET #sum = :e',
          ConditionExpression: '#sum.#l = :lease',
          ExpressionAttributeNames: { '#sum': 'summary', '#l': 'leaseUntil' },
          ExpressionAttributeValues: { ':e': entry, ':lease': leaseRead },
        }),
      );
      return true;
    } catch (e) {
      if (lost(e)) return false;
      throw e;
    }
  }

  async settleSummary(id: string, entry: OutboxEntry | null, gaveUp: readonly Undelivered[]): Promise<void> {
    // Done: pending emptied but the entry kept, so `trainwatch silences` can show the summary went out.
    const set = entry ? ['#sum = :e'] : ['#sum.#p = :none'];
    const names: Record<string, string> = entry
      ? { '#sum': 'summary' }
      : { '#sum': 'summary', '#p': 'pending' };
    const values: Record<string, unknown> = entry ? { ':e': entry } : { ':none': [] };
    if (gaveUp.length) {
      set.push('#u = list_append(if_not_exists(#u, :empty), :gu)');
      names['#u'] = 'undelivered';
      Object.assign(values, { ':empty': [], ':gu': gaveUp });
    }
    await this.ddb.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key(id),
        UpdateExpression: `SET ${set.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  }
}
