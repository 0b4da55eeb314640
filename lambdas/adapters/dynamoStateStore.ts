import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateScan,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { StateStore } from '../core/ports.js';
import type { Flip, OutboxEntry, RunRecord, Undelivered } from '../core/record.js';

const STATE = 'STATE';
export const pk = (runId: string) => `RUN#${runId}`;

function toItem(r: RunRecord): Record<string, unknown> {
  return { pk: pk(r.runId), sk: STATE, ...r, locks: r.locks ?? {} };
}

function fromItem(item: Record<string, unknown>): RunRecord {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as unknown as RunRecord;
}

/** A history entry's sort key: newest last, so a reverse Query reads the latest first. */
export const flipSortKey = (flip: Flip) =>
  `FLIP#${new Date(flip.at).toISOString()}#${String(flip.version).padStart(8, '0')}`;

const lost = (e: unknown) => e instanceof ConditionalCheckFailedException;

const versionIs = (expected: number) =>
  expected === 0
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : {
        ConditionExpression: '#v = :v',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: { ':v': expected },
      };

/**
 * Run state in one DynamoDB table: the run item (`RUN#id` / `STATE`) and its history
 * (`RUN#id` / `FLIP#<time>#<version>`, expiring by TTL on `expiresAt`).
 */
export class DynamoStateStore implements StateStore {
  constructor(
    private readonly table: string,
    private readonly ddb: DynamoDBDocumentClient = DynamoDBDocumentClient.from(new DynamoDBClient({})),
    private readonly historyTtlDays = 90,
  ) {}

  async loadAll(): Promise<Map<string, RunRecord>> {
    const out = new Map<string, RunRecord>();
    const pages = paginateScan(
      { client: this.ddb },
      { TableName: this.table, FilterExpression: 'sk = :s', ExpressionAttributeValues: { ':s': STATE } },
    );
    for await (const page of pages)
      for (const item of page.Items ?? []) out.set(String(item.runId), fromItem(item));
    return out;
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const res = await this.ddb.send(
      new GetCommand({ TableName: this.table, Key: { pk: pk(runId), sk: STATE }, ConsistentRead: true }),
    );
    return res.Item ? fromItem(res.Item) : undefined;
  }

  /**
   * The conditional write of the run item decides who won; the history entry follows as a plain put.
   * No transaction: it would bill twice the write units, and the winner's alert is already safe in
   * the run's outbox. A failed history write loses only that history line, which we log.
   */
  async transition(next: RunRecord, flip: Flip, expectedVersion: number): Promise<boolean> {
    if (!(await this.update(next, expectedVersion))) return false;
    const sk = flipSortKey(flip);
    const expiresAt = Math.floor(flip.at / 1000) + this.historyTtlDays * 86_400;
    try {
      await this.ddb.send(
        new PutCommand({ TableName: this.table, Item: { pk: pk(flip.runId), sk, ...flip, expiresAt } }),
      );
    } catch (e) {
      console.warn(
        JSON.stringify({
          level: 'WARN',
          message: 'history entry not written',
          runId: flip.runId,
          to: flip.to,
          error: String(e),
        }),
      );
    }
    return true;
  }

  async update(next: RunRecord, expectedVersion: number): Promise<boolean> {
    try {
      await this.ddb.send(
        new PutCommand({
          TableName: this.table,
          Item: toItem({ ...next, version: expectedVersion + 1 }),
          ...versionIs(expectedVersion),
        }),
      );
      return true;
    } catch (e) {
      if (lost(e)) return false;
      throw e;
    }
  }

  async settleOutbox(
    runId: string,
    alertId: string,
    entry: OutboxEntry | null,
    gaveUp: readonly Undelivered[],
    at: number,
  ): Promise<void> {
    const names: Record<string, string> = { '#o': 'outbox', '#id': alertId, '#v': 'version' };
    const values: Record<string, unknown> = { ':one': 1 };
    const set = ['#v = #v + :one'];
    if (entry) {
      set.push('#o.#id = :e');
      values[':e'] = entry;
    }
    if (gaveUp.length) {
      set.push('#u = list_append(if_not_exists(#u, :empty), :gu)', '#ua = :at');
      Object.assign(names, { '#u': 'undelivered', '#ua': 'updatedAt' });
      Object.assign(values, { ':empty': [], ':gu': gaveUp, ':at': at });
    }
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: pk(runId), sk: STATE },
          UpdateExpression: `SET ${set.join(', ')}${entry ? '' : ' REMOVE #o.#id'}`,
          ConditionExpression: 'attribute_exists(#o.#id)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (e) {
      // A later write already replaced the outbox (a newer transition): nothing left to settle.
      if (!lost(e)) throw e;
    }
  }

  async acquireLock(
    runId: string,
    name: string,
    owner: string,
    untilMs: number,
    nowMs: number,
  ): Promise<boolean> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: pk(runId), sk: STATE },
          UpdateExpression: 'SET #l.#n = :lock, #v = #v + :one',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(#l.#n) OR #l.#n.#until < :now OR #l.#n.#owner = :owner)',
          ExpressionAttributeNames: {
            '#l': 'locks',
            '#n': name,
            '#v': 'version',
            '#until': 'until',
            '#owner': 'owner',
          },
          ExpressionAttributeValues: {
            ':lock': { owner, until: untilMs },
            ':now': nowMs,
            ':owner': owner,
            ':one': 1,
          },
        }),
      );
      return true;
    } catch (e) {
      if (lost(e)) return false;
      throw e;
    }
  }

  async releaseLock(runId: string, name: string, owner: string): Promise<void> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: pk(runId), sk: STATE },
          UpdateExpression: 'REMOVE #l.#n SET #v = #v + :one',
          ConditionExpression: '#l.#n.#owner = :owner',
          ExpressionAttributeNames: { '#l': 'locks', '#n': name, '#v': 'version', '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner, ':one': 1 },
        }),
      );
    } catch (e) {
      if (!lost(e)) throw e;
    }
  }

  async history(runId: string, limit = 50): Promise<Flip[]> {
    const res = await this.ddb.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :f)',
        ExpressionAttributeValues: { ':pk': pk(runId), ':f': 'FLIP#' },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (res.Items ?? []).map((i) => fromItem(i) as unknown as Flip);
  }
}
