import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { OutboxEntry } from '../../core/model/record.js';
import type { GroupMember, GroupStore } from '../../core/oncall/index.js';
import { liveKey } from './dynamoStateStore.js';

/**
 * The grouping claim (see lambdas/core/oncall/finish.ts): one TransactWriteItems that puts the grouped
 * alert into the first member's outbox and strips Slack/SNS from every member, each update conditional
 * on the member's entry still carrying this sweep's lease. All or nothing.
 */
export class DynamoGroupStore implements GroupStore {
  constructor(
    private readonly table: string,
    private readonly ddb: DynamoDBDocumentClient,
  ) {}

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
          Key: liveKey(m.runId),
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
      if (e instanceof TransactionCanceledException) return false;
      throw e;
    }
  }
}
