import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../core/errors.js';
import type {
  Acknowledgement,
  GroupMember,
  GroupStore,
  Silence,
  SilenceStore,
} from '../core/oncall/index.js';
import type { Flip, OutboxEntry, RunRecord, Undelivered } from '../core/record.js';
import { flipSortKey, pk } from './dynamoStateStore.js';

/** Every silence shares one partition: one Query lists them, and IAM can name the key (`SILENCE`). */
export const SILENCE_PK = 'SILENCE';
/** An ended silence stays listed (and summarisable) this long, then its TTL removes it. */
const KEEP_ENDED_S = 7 * 86_400;

const lost = (e: unknown) =>
  e instanceof ConditionalCheckFailedException || e instanceof TransactionCanceledException;
const key = (id: string) => ({ pk: SILENCE_PK, sk: `SILENCE#${id}` });

/**
 * The on-call items in the runs' table: silences (`SILENCE` / `SILENCE#id`, TTL on `expiresAt`), and
 * the writes on run items that acknowledgements and grouped alerts need. Every write is conditional.
 */
export class DynamoOncallStore implements SilenceStore, GroupStore {
  constructor(
    private readonly table: string,
    private readonly ddb: DynamoDBDocumentClient,
    private readonly historyTtlDays = 90,
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

  async claimGroup(leader: string, group: OutboxEntry, members: readonly GroupMember[]): Promise<boolean> {
    const items = members.map((m) => {
      const names: Record<string, string> = {
        '#o': 'outbox',
        '#id': m.alertId,
        '#v': 'version',
        '#l': 'leaseUntil',
      };
      const values: Record<string, unknown> = { ':one': 1, ':lease': m.lease };
      const set = ['#v = #v + :one'];
      let remove = '';
      if (m.rest.length) {
        set.push('#o.#id.#p = :rest');
        names['#p'] = 'pending';
        values[':rest'] = m.rest;
      } else remove = ' REMOVE #o.#id';
      if (m.runId === leader) {
        set.push('#o.#g = :g');
        names['#g'] = group.alert.id;
        values[':g'] = group;
      }
      return {
        Update: {
          TableName: this.table,
          Key: { pk: pk(m.runId), sk: 'STATE' },
          UpdateExpression: `SET ${set.join(', ')}${remove}`,
          ConditionExpression: '#o.#id.#l = :lease',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      };
    });
    try {
      await this.ddb.send(new TransactWriteCommand({ TransactItems: items }));
      return true;
    } catch (e) {
      if (lost(e)) return false;
      throw e;
    }
  }

  /**
   * `trainwatch ack`: stores the acknowledgement and its announcement (an outbox entry due at once, so
   * the next sweep sends it exactly once) on the run item, conditional on the state the person saw;
   * then the history line. Throws ConflictError when the run moved on meanwhile.
   */
  async acknowledge(r: RunRecord, ack: Acknowledgement, entry: OutboxEntry, flip: Flip): Promise<void> {
    const names = {
      '#o': 'outbox',
      '#v': 'version',
      '#s': 'state',
      '#since': 'since',
      '#ack': 'ack',
      '#ua': 'updatedAt',
    };
    const values = { ':one': 1, ':ack': ack, ':state': r.state, ':since': r.since, ':at': ack.at };
    const base = '#v = #v + :one, #ack = :ack, #ua = :at';
    const cond = 'attribute_exists(pk) AND #s = :state AND #since = :since';
    // A map attribute must exist before one of its keys can be set: two shapes, one of which applies.
    const tries = [
      {
        UpdateExpression: `SET ${base}, #o.#id = :e`,
        ConditionExpression: `${cond} AND attribute_exists(#o)`,
        ExpressionAttributeNames: { ...names, '#id': entry.alert.id },
        ExpressionAttributeValues: { ...values, ':e': entry },
      },
      {
        UpdateExpression: `SET ${base}, #o = :m`,
        ConditionExpression: `${cond} AND attribute_not_exists(#o)`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ...values, ':m': { [entry.alert.id]: entry } },
      },
    ];
    for (const t of tries) {
      try {
        await this.ddb.send(
          new UpdateCommand({ TableName: this.table, Key: { pk: pk(r.runId), sk: 'STATE' }, ...t }),
        );
      } catch (e) {
        if (lost(e)) continue;
        throw e;
      }
      const expiresAt = Math.floor(flip.at / 1000) + this.historyTtlDays * 86_400;
      await this.ddb.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk: pk(flip.runId), sk: flipSortKey(flip), ...flip, expiresAt },
        }),
      );
      return;
    }
    throw new ConflictError(
      `run ${r.runId} changed while acknowledging it (it is no longer the ${r.state} you saw); look again`,
      {
        runId: r.runId,
      },
    );
  }
}
