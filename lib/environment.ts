import { METRICS } from './defaults.js';
import type { ResolvedProps } from './resolve.js';
import { settingsEnvironment } from './settings/index.js';

export { envDuration } from './settings/index.js';

/** What the stack wires in from the resources it creates (names and ARNs, tokens at synth). */
export interface Wiring {
  readonly bucket: string;
  readonly table: string;
  readonly topicArn: string;
  readonly eventBus: string;
}

/**
 * The environment of the sweep and the sentinel: the wiring, then every runtime setting from the
 * registry (lambdas/settings/registry.ts) but remediation's.
 */
export function commonEnvironment(w: Wiring, s: ResolvedProps): Record<string, string> {
  return {
    TRAINWATCH_BUCKET: w.bucket,
    TRAINWATCH_TABLE: w.table,
    TRAINWATCH_TOPIC_ARN: w.topicArn,
    TRAINWATCH_EVENT_BUS: w.eventBus,
    ...settingsEnvironment(s, 'common'),
    POWERTOOLS_SERVICE_NAME: METRICS.service,
    POWERTOOLS_METRICS_NAMESPACE: METRICS.namespace,
  };
}

/** What remediation reads in addition: its documents and the `remediation.*` settings. */
export function remediationEnvironment(
  documents: { diagnose: string; restart: string },
  s: ResolvedProps,
): Record<string, string> {
  return {
    TRAINWATCH_DIAGNOSE_DOCUMENT: documents.diagnose,
    TRAINWATCH_RESTART_DOCUMENT: documents.restart,
    ...settingsEnvironment(s, 'remediation'),
  };
}
