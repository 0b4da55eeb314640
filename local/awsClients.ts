import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import {
  type Clients,
  counted,
  RequestCounter,
  type SdkOptions,
  sdkConfig,
  storageClients,
} from '../lambdas/adapters/aws/clients.js';

/** Every client, made at once: the local mode, the CLI, the benchmark and the tests (never a Lambda bundle). */
export interface AwsClients extends Clients {
  readonly sns: SNSClient;
  readonly events: EventBridgeClient;
  readonly ssm: SSMClient;
  /** Only the local mode's queues use SQS (the emulator cannot invoke Lambdas). */
  readonly sqs: SQSClient;
}

/** Creates all clients for `region` (and a local emulator `endpoint`, if any), counted by one counter. */
export function awsClients(opts: SdkOptions): AwsClients {
  const counter = new RequestCounter();
  const base = sdkConfig(opts);
  return {
    ...storageClients(opts, counter),
    sns: counted(new SNSClient(base), 'SNS', counter),
    events: counted(new EventBridgeClient(base), 'EventBridge', counter),
    ssm: counted(new SSMClient(base), 'SSM', counter),
    sqs: counted(new SQSClient(base), 'SQS', counter),
    counter,
  };
}
