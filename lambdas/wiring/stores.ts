// The DynamoDB stores and the restart-request bus, each made here and nowhere else from the configuration
// and a client: the sweep's app, the Slack endpoint and the CLI take theirs from these. The S3 stores are
// made where they are used, once each (app.ts, remediation.ts): the Slack endpoint never loads S3. The
// Slack app's thread store is made by its channel, in the chunk that only a Slack app post loads.
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ClientSource } from '../adapters/aws/lazy.js';
import { RestartRequests } from '../adapters/aws/restartRequests.js';
import { DynamoAckStore } from '../adapters/stores/dynamoAckStore.js';
import { DynamoGroupStore } from '../adapters/stores/dynamoGroupStore.js';
import { DynamoSilenceStore } from '../adapters/stores/dynamoSilenceStore.js';
import { DynamoSlackRequests } from '../adapters/stores/dynamoSlackRequests.js';
import { DynamoStateStore } from '../adapters/stores/dynamoStateStore.js';
import type { Config } from '../config.js';
import type { Links } from '../core/alerting/alerts.js';

type Table = Pick<Config, 'table' | 'historyTtlDays' | 'runRetentionDays'>;

/** Each run's state and history (DynamoDB). */
export const stateStore = (c: Table, ddb: DynamoDBDocumentClient) =>
  new DynamoStateStore(c.table, ddb, c.historyTtlDays, c.runRetentionDays);
/** `trainwatch ack` and Slack's Acknowledge. */
export const ackStore = (c: Table, ddb: DynamoDBDocumentClient) =>
  new DynamoAckStore(c.table, ddb, c.historyTtlDays);
/** Silences (on-call lifecycle). */
export const silenceStore = (c: Table, ddb: DynamoDBDocumentClient) => new DynamoSilenceStore(c.table, ddb);
/** The grouping claims of alerts sent as one. */
export const groupStore = (c: Table, ddb: DynamoDBDocumentClient) => new DynamoGroupStore(c.table, ddb);
/** Slack interactions already answered (a retried request is not acted on twice). */
export const slackRequests = (c: Table, ddb: DynamoDBDocumentClient) => new DynamoSlackRequests(c.table, ddb);
/** Restart requests a person made, on the event bus remediation listens to. */
export const restartRequests = (c: Pick<Config, 'eventBus'>, events: ClientSource<EventBridgeClient>) =>
  new RestartRequests(c.eventBus, events);
/** Where an alert's links point (the console pages of the run's files). */
export const linksOf = (c: Pick<Config, 'bucket' | 'prefix' | 'region'>): Links => ({
  bucket: c.bucket,
  prefix: c.prefix,
  region: c.region,
});
