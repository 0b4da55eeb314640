import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { ALL_STATES } from '../core/model/states.js';
import type { SweepSummary } from '../core/pipeline/index.js';
import { sweep } from '../core/pipeline/index.js';
import { type App, createApp } from '../wiring/app.js';

const logger = new Logger({ serviceName: 'trainwatch' });
const metrics = new Metrics({ namespace: 'Trainwatch', serviceName: 'trainwatch' });
let app: App | undefined;

/** A sweep's summary plus what it cost: wall time and AWS requests by service. */
export interface SweepReport extends SweepSummary {
  readonly durationMs: number;
  readonly requests: Record<string, number>;
}

/** One sweep with request accounting; the same function runs in Lambda, the CLI and the local mode. */
export async function runSweep(a: App, now: number): Promise<SweepReport> {
  const started = performance.now();
  a.clients.counter.reset();
  const summary = await sweep(a.deps, now);
  return {
    ...summary,
    durationMs: Math.round(performance.now() - started),
    requests: a.clients.counter.byService(),
  };
}

function publish(r: SweepReport): void {
  for (const state of ALL_STATES) {
    const m = metrics.singleMetric();
    m.addDimension('State', state);
    m.addMetric('Runs', MetricUnit.Count, r.byState[state]);
  }
  for (const [finding, n] of Object.entries(r.degraded)) {
    const m = metrics.singleMetric();
    m.addDimension('Finding', finding);
    m.addMetric('DegradedRuns', MetricUnit.Count, n);
  }
  metrics.addMetric('Transitions', MetricUnit.Count, r.transitions.length);
  metrics.addMetric('AlertsSent', MetricUnit.Count, r.alertsSent);
  metrics.addMetric('AlertsFailed', MetricUnit.Count, r.alertsFailed);
  metrics.addMetric('RunErrors', MetricUnit.Count, r.errors.length);
  metrics.addMetric('RunsEnded', MetricUnit.Count, r.ended);
  metrics.addMetric('SweepDuration', MetricUnit.Milliseconds, r.durationMs);
  metrics.publishStoredMetrics();
}

/** Lambda entry: the EventBridge schedule's event is ignored; `now` is the clock. */
export const handler = async (_event?: unknown): Promise<SweepReport> => {
  app ??= createApp(process.env);
  const report = await runSweep(app, Date.now());
  publish(report);
  const { ignoredKeys, ...rest } = report;
  logger.info('sweep', { ...rest, ignoredKeys: ignoredKeys.length });
  for (const e of report.errors) logger.warn('run check failed', e);
  return report;
};
