import { ackRun } from '../bin/commands/ack.js';
import { addSilence } from '../bin/commands/silence.js';
import type { RunRecord } from '../lambdas/core/model/record.js';
import { UNHEALTHY } from '../lambdas/core/model/states.js';
import { currentAck } from '../lambdas/core/oncall/index.js';
import type { App } from '../lambdas/wiring/app.js';
import type { SlackApi } from './slackApi.js';
import { clickAcknowledge } from './slackPerson.js';

/** Who acts in the local mode's story. */
export const LOCAL_PERSON = 'local-oncall';

/** The local mode's silence: whisper-pending's slow dataset download pages nobody for 25 s. */
export async function localSilence(app: App, now: number): Promise<string> {
  const s = await addSilence(
    app,
    // A run scope: this run never writes metadata.json, so no job name is known for a job scope to match.
    { kind: 'run', runId: 'whisper-pending' },
    25_000,
    'dataset download is slow today',
    LOCAL_PERSON,
    now,
  );
  return `trainwatch silence --run whisper-pending --for 25s --reason "dataset download is slow today"  → ${s.id}`;
}

/**
 * A person on call: once a run has had one reminder, they acknowledge it, which stops its reminders until
 * its next transition: with the Slack app, by clicking Acknowledge on its alert (a signed request to the
 * local endpoint), else with `trainwatch ack` (the same operation). Returns what they did, for the output.
 */
export async function actOnReminders(
  app: App,
  records: readonly RunRecord[],
  now: number,
  slack?: { readonly api: SlackApi; readonly endpoint: string; readonly secret: string },
): Promise<string[]> {
  const done: string[] = [];
  for (const r of records) {
    const reminded = r.lastAlertAt !== undefined && r.lastAlertAt > r.since;
    if (!UNHEALTHY.has(r.state) || !reminded || currentAck(r)) continue;
    const clicked = slack && (await clickAcknowledge(slack.api, slack.endpoint, slack.secret, r));
    if (clicked) {
      done.push(clicked);
      continue;
    }
    try {
      await ackRun(app, r.runId, LOCAL_PERSON, 'looking into it', now);
      done.push(`trainwatch ack ${r.runId} --by ${LOCAL_PERSON} --note "looking into it"`);
    } catch (e) {
      done.push(`trainwatch ack ${r.runId}: ${(e as Error).message}`);
    }
  }
  return done;
}
