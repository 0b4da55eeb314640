import type { Links } from '../alerting/alerts.js';
import type { DeliverOptions } from '../alerting/deliver.js';
import type { Thresholds } from '../detection/thresholds.js';
import type { HealthSettings } from '../health/index.js';
import type { Notifier, RunStore, StateStore } from '../model/ports.js';
import type { Oncall } from '../oncall/index.js';

/** What checking a run needs: ports, thresholds and the classifier. Built once per cold start. */
export interface CheckDeps {
  readonly runs: RunStore;
  readonly states: StateStore;
  readonly notifiers: readonly Notifier[];
  readonly thresholds: Thresholds;
  readonly classify: Classifier;
  readonly links: Links;
  readonly remindEveryMs?: number;
  readonly deliverOptions?: DeliverOptions;
  /** Silences, acknowledgements and grouping (lambdas/core/oncall); absent: none of them. */
  readonly oncall?: Oncall;
  /** The healthy-run rules (throughput, stragglers, idle GPUs: lambdas/core/health); absent: off. */
  readonly health?: HealthSettings;
}

/**
 * Classifies an error text (with the log tail) into an error type; injected so core stays pluggable (the
 * functions load the classifier's rules on first use: lambdas/adapters/loaders/classifier.ts).
 */
export type Classifier = (
  text: string,
  profile?: string,
) => { error_type: string | null } | Promise<{ error_type: string | null }>;
