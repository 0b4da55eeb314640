import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  DynamoDBDocumentClient,
  PutCommand,
  paginateQuery,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { StateStore } from '../../core/model/ports.js';
import type { Ended, Flip, OutboxEntry, RunRecord, Undelivered } from '../../core/model/record.js';
import { liftFacts } from './legacyFacts.js';

const STATE = 'STATE';
export const pk = (runId: string) => `RUN#${runId}`;

/**
 * Live run items are spread over this many partitions, `LIVE#0` … `LIVE#3`, so the sweep reads them with
 * one Query each, in parallel, and never reads an ended run or a history entry. Fixed: changing it would
 * strand the items of the other partitions.
 */
export const LIVE_SHARDS = 4;

/** FNV-1a: a run's live partition, stable across processes and languages. */
function shardOf(runId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < runId.length; i++) h = Math.imul(h ^ runId.charCodeAt(i), 0x01000193) >>> 0;
  return h % LIVE_SHARDS;
}

/** Where a live run's item is: `LIVE#<shard>` / `RUN#<id>`. */
export const liveKey = (runId: string) => ({ pk: `LIVE#${shardOf(runId)}`, sk: pk(runId) });
/** Where an ended run's item is, beside its history: `RUN#<id>` / `STATE`. */
export const endedKey = (runId: string) => ({ pk: pk(runId), sk: STATE });
/** The ended-runs log, by month of ending: `ENDED#2026-11` / `<ended at ISO>#<id>` (`trainwatch status --ended`). */
export const endedLogKey = (runId: string, at: number) => {
  const iso = new Date(at).toISOString();
  return { pk: `ENDED#${iso.slice(0, 7)}`, sk: `${iso}#${runId}` };
};

function toItem(r: RunRecord): Record<string, unknown> {
  return { ...liveKey(r.runId), ...r, locks: r.locks ?? {} };
}

/** An item without its keys and TTL. */
function unkeyed(item: Record<string, unknown>): Record<string, unknown> {
  const { pk: _pk, sk: _sk, expiresAt: _e, ...rest } = item;
  return rest;
}

/** A run item as its record (an earlier version's flat facts lifted into `facts`). */
function fromItem(item: Record<string, unknown>): RunRecord {
  return liftFacts(unkeyed(item)) as unknown as RunRecord;
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
 * Run state in one DynamoDB table. A live run's item sits in a live partition (`LIVE#n` / `RUN#id`),
 * which the sweep Queries; when the run ends, the item moves beside its history (`RUN#id` / `STATE`,
 * expiring with the run's files) and a line goes to the ended-runs log. History entries are
 * `RUN#id` / `FLIP#<time>#<version>`, expiring by TTL on `expiresAt`. Items that an earlier version
 * kept at `RUN#id` / `STATE` without `ended` are live runs: read, they move to their live partition.
 */
export class DynamoStateStore implements StateStore {
  constructor(
    private readonly table: string,
    private readonly ddb: DynamoDBDocumentClient = DynamoDBDocumentClient.from(new DynamoDBClient({})),
    private readonly historyTtlDays = 90,
    /** How long an ended run's item is kept (its files' retention); 0: for good. */
    private readonly runRetentionDays = 90,
  ) {}

  async loadLive(): Promise<Map<string, RunRecord>> {
    const out = new Map<string, RunRecord>();
    await Promise.all(
      Array.from({ length: LIVE_SHARDS }, async (_, shard) => {
        const pages = paginateQuery(
          { client: this.ddb },
          {
            TableName: this.table,
            KeyConditionExpression: 'pk = :p',
            ExpressionAttributeValues: { ':p': `LIVE#${shard}` },
          },
        );
        for await (const page of pages)
          for (const item of page.Items ?? []) out.set(String(item.runId), fromItem(item));
      }),
    );
    return out;
  }

  /** Items by key, strongly consistent, in batches of 100, retrying what DynamoDB left unprocessed. */
  private async batchGet(keys: Record<string, string>[]): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < keys.length; i += 100) {
      let pending: Record<string, unknown>[] | undefined = keys.slice(i, i + 100);
      for (let tries = 0; pending?.length; tries++) {
        if (tries > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** tries)));
        const res: BatchGetCommandOutput = await this.ddb.send(
          new BatchGetCommand({
            RequestItems: { [this.table]: { Keys: pending, ConsistentRead: true } },
          }),
        );
        out.push(...(res.Responses?.[this.table] ?? []));
        pending = res.UnprocessedKeys?.[this.table]?.Keys;
      }
    }
    return out;
  }

  async find(runIds: readonly string[]): Promise<Map<string, RunRecord>> {
    const out = new Map<string, RunRecord>();
    for (const item of await this.batchGet(runIds.map(endedKey))) {
      const r = await this.current(fromItem(item));
      if (r) out.set(r.runId, r);
    }
    return out;
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const items = await this.batchGet([liveKey(runId), endedKey(runId)]);
    const live = items.find((i) => i.sk === pk(runId));
    if (live) return fromItem(live);
    const ended = items.find((i) => i.sk === STATE);
    return ended ? this.current(fromItem(ended)) : undefined;
  }

  /**
   * An item at `RUN#id` / `STATE` is an ended run, unless it has no `ended`: then an earlier layout kept a
   * live run there, and it moves to its live partition now (once; a racing reader finds it moved).
   */
  private async current(r: RunRecord): Promise<RunRecord | undefined> {
    if (r.ended) return r;
    const moved = { ...r, version: r.version + 1 };
    if (await this.revive(moved, r.version)) return moved;
    const [item] = await this.batchGet([liveKey(r.runId)]);
    return item ? fromItem(item) : undefined;
  }

  async revive(next: RunRecord, expectedVersion: number): Promise<boolean> {
    return this.move(endedKey(next.runId), expectedVersion, [
      {
        Item: toItem({ ...next, ended: undefined, version: expectedVersion + 1 }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    ]);
  }

  /**
   * One transaction: the live item goes (conditional on the version read), the ended item and its line
   * in the ended-runs log come, both expiring with the run's files; then the history entry, as for a
   * transition. Billed once per ending, never per sweep.
   */
  async end(r: RunRecord, ended: Ended, flip: Flip): Promise<boolean> {
    const ttl =
      this.runRetentionDays > 0
        ? { expiresAt: Math.floor(ended.at / 1000) + this.runRetentionDays * 86_400 }
        : {};
    const { runId, state, reason, attempt } = r;
    const moved = await this.move(liveKey(runId), r.version, [
      {
        Item: {
          ...endedKey(runId),
          ...r,
          ended,
          version: r.version + 1,
          updatedAt: ended.at,
          locks: {},
          ...ttl,
        },
      },
      {
        Item: {
          ...endedLogKey(runId, ended.at),
          ...{
            runId,
            state,
            reason,
            attempt,
            errorType: r.errorType ?? null,
            endedAt: ended.at,
            folder: ended.folder,
          },
          ...ttl,
        },
      },
    ]);
    if (moved) await this.putFlip(flip);
    return moved;
  }

  /** Deletes the item at `from` if its version is `version` and puts `puts`, all or nothing. */
  private async move(
    from: Record<string, string>,
    version: number,
    puts: { Item: Record<string, unknown>; ConditionExpression?: string }[],
  ): Promise<boolean> {
    try {
      await this.ddb.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: this.table, Key: from, ...versionIs(version) } },
            ...puts.map((p) => ({ Put: { TableName: this.table, ...p } })),
          ],
        }),
      );
      return true;
    } catch (e) {
      if (e instanceof TransactionCanceledException) return false;
      throw e;
    }
  }

  private async putFlip(flip: Flip): Promise<void> {
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
  }

  /**
   * The conditional write of the run item decides who won; the history entry follows as a plain put.
   * No transaction: it would bill twice the write units, and the winner's alert is already safe in
   * the run's outbox. A failed history write loses only that history line, which we log.
   */
  async transition(next: RunRecord, flip: Flip, expectedVersion: number): Promise<boolean> {
    if (!(await this.update(next, expectedVersion))) return false;
    await this.putFlip(flip);
    return true;
  }

  /** Writes a live run's item; an ended run is written only through `revive` (its item is elsewhere). */
  async update(next: RunRecord, expectedVersion: number): Promise<boolean> {
    if (next.ended) return false;
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
          Key: liveKey(runId),
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
          Key: liveKey(runId),
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
          Key: liveKey(runId),
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
    return (res.Items ?? []).map((i) => unkeyed(i) as unknown as Flip);
  }
}
