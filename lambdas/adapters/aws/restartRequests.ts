import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { RESTART_REQUEST } from '../../core/remediation/eventRules.js';
import type { RestartRequestDetail } from '../../events/restartRequest.js';
import { type ClientSource, clientOf, once } from './lazy.js';

const sdk = once(() => import('@aws-sdk/client-eventbridge'));

/**
 * Hands a person's restart request to the remediation function: one event on the trainwatch bus, which a
 * rule routes there (lib/monitor.ts). The caller needs `events:PutEvents` on that bus only, never SSM.
 */
export class RestartRequests {
  constructor(
    private readonly bus: string | undefined,
    private readonly client: ClientSource<EventBridgeClient>,
  ) {}

  async put(detail: RestartRequestDetail): Promise<void> {
    const [{ PutEventsCommand }, client] = await Promise.all([sdk(), clientOf(this.client)]);
    const out = await client.send(
      new PutEventsCommand({
        Entries: [
          {
            Source: RESTART_REQUEST.source,
            DetailType: RESTART_REQUEST.detailType,
            Detail: JSON.stringify(detail),
            EventBusName: this.bus,
          },
        ],
      }),
    );
    const failed = out.Entries?.find((e) => e.ErrorCode);
    if ((out.FailedEntryCount ?? 0) > 0)
      throw new Error(
        `the restart request was refused: ${failed?.ErrorCode ?? 'Unknown'} ${failed?.ErrorMessage ?? ''}`.trim(),
      );
  }
}
