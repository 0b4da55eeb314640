import { ArnFormat, type Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { acknowledge, checkovSkip } from './nag.js';
import { privateBucketProps } from './storage.js';

// Opt-in hardening (off by default, see docs/DEPLOY.md, "IaC scanner findings"): what it costs is said there.

/** The bucket that receives the heartbeat bucket's server access logs (created when they are on). */
export function createAccessLogBucket(
  scope: Construct,
  opts: { removalPolicy: RemovalPolicy; retention: Duration },
): s3.Bucket {
  const bucket = new s3.Bucket(scope, 'AccessLogBucket', {
    ...privateBucketProps(opts.removalPolicy),
    // Old log versions expire with the logs: a deleted or overwritten log stays recoverable as long as logs are kept.
    lifecycleRules: [
      { id: 'expire-logs', expiration: opts.retention, noncurrentVersionExpiration: opts.retention },
    ],
  });
  acknowledge(
    bucket,
    'AwsSolutions-S1',
    'This is the access-log bucket itself: logging it would log the logs.',
  );
  checkovSkip(bucket, 'CKV_AWS_18', 'The access-log bucket itself.');
  return bucket;
}

/**
 * The customer-managed key of the state table and the log groups (opt-in): rotated yearly, and usable by
 * CloudWatch Logs only for this account's log groups in this region.
 */
export function createDataKey(scope: Construct, removalPolicy: RemovalPolicy): kms.Key {
  const stack = Stack.of(scope);
  const key = new kms.Key(scope, 'DataKey', {
    description: 'trainwatch: encrypts the state table and the log groups',
    enableKeyRotation: true,
    removalPolicy,
  });
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchLogs',
      principals: [new iam.ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
      actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
      resources: ['*'],
      conditions: {
        ArnLike: {
          'kms:EncryptionContext:aws:logs:arn': stack.formatArn({
            service: 'logs',
            resource: 'log-group',
            resourceName: '*',
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        },
      },
    }),
  );
  return key;
}
