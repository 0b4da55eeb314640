import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../core/base/errors.js';
import type { Flip, OutboxEntry, RunRecord } from '../../core/model/record.js';
import type { Acknowledgement } from '../../core/oncall/index.js';
import { flipSortKey, liveKey, pk } from './dynamoStateStore.js';

const lost = (e: unknown) => e instanceof ConditionalCheckFailedException;

/** `trainwatch ack`'s writes: the acknowledgement and its announcement on the run item, and a history line. */
export class DynamoAckStore {
  constructor(
    private readonly table: string,
    private readonly ddb: DynamoDBDocumentClient,
    private readonly historyTtlDays = 90,
  ) {}

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
        await this.ddb.send(new UpdateCommand({ TableName: this.table, Key: liveKey(r.runId), ...t }));
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
