// Every store trainwatch keeps, each made here and nowhere else from the configuration and a client: the
// sweep's app, the remediation function, the Slack endpoint and the CLI take theirs from these.
// (The Slack app's thread store is made by its channel, in the chunk that only a Slack app post loads.)
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ClientSource } from '../adapters/aws/lazy.js';
import { RestartRequests } from '../adapters/aws/restartRequests.js';
import { DynamoAckStore } from '../adapters/stores/dynamoAckStore.js';
import { DynamoGroupStore } from '../adapters/stores/dynamoGroupStore.js';
import { DynamoSilenceStore } from '../adapters/stores/dynamoSilenceStore.js';
import { DynamoSlackRequests } from '../adapters/stores/dynamoSlackRequests.js';
import { DynamoStateStore } from '../adapters/stores/dynamoStateStore.js';
import { S3AttemptArchive } from '../adapters/stores/s3AttemptArchive.js';
import { S3RunStore } from '../adapters/stores/s3RunStore.js';
import type { Config } from '../config.js';
import type { Links } from '../core/alerting/alerts.js';

type Table = Pick<Config, 'table' | 'historyTtlDays' | 'runRetentionDays'>;
type Bucket = Pick<Config, 'bucket' | 'prefix' | 'endedPrefix'>;

/** The runs' heartbeat files (S3). */
export const runStore = (c: Bucket, s3: S3Client) => new S3RunStore(c.bucket, c.prefix, s3, c.endedPrefix);
/** Earlier attempts' files, kept for a restart (S3). */
export const attemptArchive = (c: Bucket, s3: S3Client) => new S3AttemptArchive(c.bucket, c.prefix, s3);
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
