// The emulator keeps the promises the product relies on: a conditional write is atomic, in DynamoDB
// and in S3. Without scripts/moto_patches.py's locks, moto's threaded server checks a condition and then
// writes, and two writers arriving together could both pass (issue 24: `race-8` won by two sweeps).
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  type S3ServiceException,
} from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestEnvironment, testEnvironment } from '../support/environment.js';

let t: TestEnvironment;
beforeAll(async () => {
  t = await testEnvironment();
});
afterAll(() => t.close());

const ROUNDS = 25;
const WRITERS = 12;

describe('moto server as the tests run it', () => {
  it('lets exactly one of many conditional PutItems on the same version win, every round', async () => {
    const app = t.app();
    const ddb = app.clients.ddb;
    const table = app.config.table;
    const winners: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const key = { pk: `RACE#${round}`, sk: 'STATE' };
      await ddb.send(new PutCommand({ TableName: table, Item: { ...key, version: 1 } }));
      const results = await Promise.allSettled(
        Array.from({ length: WRITERS }, (_, w) =>
          ddb.send(
            new PutCommand({
              TableName: table,
              Item: { ...key, version: 2, writer: w },
              ConditionExpression: '#v = :v',
              ExpressionAttributeNames: { '#v': 'version' },
              ExpressionAttributeValues: { ':v': 1 },
            }),
          ),
        ),
      );
      for (const r of results)
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConditionalCheckFailedException);
      winners.push(results.filter((r) => r.status === 'fulfilled').length);
    }
    expect(winners).toEqual(Array(ROUNDS).fill(1));
  });

  it('deletes an object on If-Match only while its ETag still matches, also against a racing PUT', async () => {
    const app = t.app();
    const s3 = app.clients.s3;
    const Bucket = app.config.bucket;
    for (let round = 0; round < ROUNDS; round++) {
      const Key = `race/${round}.json`;
      const { ETag } = await s3.send(new PutObjectCommand({ Bucket, Key, Body: 'old' }));
      const [del, put] = await Promise.allSettled([
        s3.send(new DeleteObjectCommand({ Bucket, Key, IfMatch: ETag })),
        s3.send(new PutObjectCommand({ Bucket, Key, Body: `new ${round}` })),
      ]);
      expect(put.status).toBe('fulfilled');
      // Either the delete came first (the PUT then wrote the new body) or it found the new ETag: the new body stays.
      const body = await s3
        .send(new (await import('@aws-sdk/client-s3')).GetObjectCommand({ Bucket, Key }))
        .then((r) => r.Body!.transformToString());
      expect(body).toBe(`new ${round}`);
      if (del.status === 'rejected')
        expect((del.reason as S3ServiceException).$metadata.httpStatusCode).toBe(412);
    }
  });

  it('refuses a copy whose source no longer has the ETag named (x-amz-copy-source-if-match), as S3 does', async () => {
    const app = t.app();
    const s3 = app.clients.s3;
    const Bucket = app.config.bucket;
    const { ETag } = await s3.send(new PutObjectCommand({ Bucket, Key: 'src.json', Body: 'one' }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'src.json', Body: 'two' }));
    const refused = await s3
      .send(
        new CopyObjectCommand({
          Bucket,
          Key: 'dst.json',
          CopySource: `${Bucket}/src.json`,
          CopySourceIfMatch: ETag,
        }),
      )
      .then(() => undefined)
      .catch((e: S3ServiceException) => e.$metadata.httpStatusCode);
    expect(refused).toBe(412);
  });
});
