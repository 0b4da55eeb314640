import type { SNSClient } from '@aws-sdk/client-sns';
import type { Alert } from '../../../core/model/alert.js';
import type { ChannelName } from '../../../core/model/channels.js';
import type { Notifier } from '../../../core/model/ports.js';
import { snsMessage } from '../../../core/render/text.js';
import { awsDeliveryError } from '../../aws/awsDeliveryError.js';
import { type ClientSource, clientOf, once } from '../../aws/lazy.js';

// Imported on the first alert, not at cold start: most sweeps send none.
const sdk = once(() => import('@aws-sdk/client-sns'));

/** Publishes alerts to an SNS topic (email, SMS, chat), with attributes subscribers can filter on. */
export class SnsNotifier implements Notifier {
  readonly channel: ChannelName = 'sns';

  constructor(
    private readonly topicArn: string,
    private readonly client: ClientSource<SNSClient> = once(async () => new (await sdk()).SNSClient({})),
  ) {}

  async notify(alert: Alert): Promise<void> {
    const { subject, body } = snsMessage(alert);
    try {
      const [{ PublishCommand }, client] = await Promise.all([sdk(), clientOf(this.client)]);
      await client.send(
        new PublishCommand({
          TopicArn: this.topicArn,
          Subject: subject,
          Message: body,
          // A subscription filter policy can match these, e.g. {"severity": ["critical"]} for SMS.
          MessageAttributes: {
            state: { DataType: 'String', StringValue: alert.state },
            run_id: { DataType: 'String', StringValue: alert.runId },
            severity: { DataType: 'String', StringValue: alert.severity },
          },
        }),
      );
    } catch (err) {
      throw awsDeliveryError(this.channel, err);
    }
  }
}
