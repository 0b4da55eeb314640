import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { DeliveryError } from '../../../core/base/errors.js';
import type { Alert } from '../../../core/model/alert.js';
import type { ChannelName } from '../../../core/model/channels.js';
import type { Notifier } from '../../../core/model/ports.js';
import { STATE_CHANGE } from '../../../core/remediation/eventRules.js';
import { clip } from '../../../core/render/fields.js';
import { awsDeliveryError, isTransientCode } from '../../aws/awsDeliveryError.js';
import { type ClientSource, clientOf, once } from '../../aws/lazy.js';

// Imported on the first alert, not at cold start: most sweeps send none.
const sdk = once(() => import('@aws-sdk/client-eventbridge'));

/**
 * The event detail: the alert itself, with `errorType` always present so rules can match `null`,
 * and free text clipped so the entry stays far below EventBridge's 256 KB.
 */
export function eventDetail(alert: Alert): Alert & { errorType: string | null } {
  return {
    ...alert,
    errorType: alert.errorType ?? null,
    reason: clip(alert.reason, 4000),
    ...(alert.lastLogLine !== undefined ? { lastLogLine: clip(alert.lastLogLine, 2000) } : {}),
    ...(alert.details ? { details: alert.details.slice(0, 20).map((d) => clip(d, 1000)) } : {}),
  };
}

/** Puts every alert on an EventBridge bus (the default bus when none is named), for routing anywhere. */
export class EventBridgeNotifier implements Notifier {
  readonly channel: ChannelName = 'events';

  constructor(
    private readonly eventBusName?: string,
    private readonly client: ClientSource<EventBridgeClient> = once(
      async () => new (await sdk()).EventBridgeClient({}),
    ),
  ) {}

  async notify(alert: Alert): Promise<void> {
    let out: { FailedEntryCount?: number; Entries?: { ErrorCode?: string; ErrorMessage?: string }[] };
    try {
      const [{ PutEventsCommand }, client] = await Promise.all([sdk(), clientOf(this.client)]);
      out = await client.send(
        new PutEventsCommand({
          Entries: [
            {
              Source: STATE_CHANGE.source,
              DetailType: STATE_CHANGE.detailType,
              Detail: JSON.stringify(eventDetail(alert)),
              Time: Number.isFinite(alert.at) ? new Date(alert.at) : undefined,
              EventBusName: this.eventBusName,
            },
          ],
        }),
      );
    } catch (err) {
      throw awsDeliveryError(this.channel, err);
    }
    // PutEvents answers 200 even when an entry is rejected; the entry says why.
    if ((out.FailedEntryCount ?? 0) > 0) {
      const entry = out.Entries?.find((e) => e.ErrorCode) ?? {};
      const code = entry.ErrorCode ?? 'Unknown';
      throw new DeliveryError(
        `${this.channel}: ${code}: ${entry.ErrorMessage ?? 'entry rejected'}`,
        !isTransientCode(code),
        { channel: this.channel, code },
      );
    }
  }
}
