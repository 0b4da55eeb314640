import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { HEALTH_FINDING_KINDS } from '../lambdas/core/model/slices/health.js';
import { trainwatchMetric } from './alarms.js';
import { METRICS } from './defaults.js';

/** What the dashboard shows. */
export interface DashboardProps {
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  readonly deadLetterQueue: sqs.IQueue;
  readonly alarms: readonly cloudwatch.IAlarm[];
}

/** Runs by state, transitions, alerts sent and failed, sweep duration, the functions and the alarms. */
export function createDashboard(scope: Construct, props: DashboardProps): cloudwatch.Dashboard {
  const minute = Duration.minutes(1);
  const fns = Object.entries(props.functions);
  const perFunction = (pick: (fn: lambda.IFunction) => cloudwatch.IMetric) =>
    fns.map(([name, fn]) => {
      const m = pick(fn) as cloudwatch.Metric;
      return m.with({ label: name });
    });
  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', { defaultInterval: Duration.hours(6) });
  dashboard.addWidgets(
    new cloudwatch.GraphWidget({
      // Live runs: a run that ended (retention.endedAfter) leaves the sweep, and RunsEnded counts it once.
      title: 'Runs by state (live runs)',
      stacked: true,
      width: 12,
      // Each sweep reports the current count per state: the latest value in the minute is the gauge.
      left: METRICS.states.map((state) =>
        trainwatchMetric('Runs', { state, statistic: 'Maximum', period: minute, label: state }),
      ),
    }),
    new cloudwatch.GraphWidget({
      title: 'Transitions and alerts',
      width: 12,
      left: [
        trainwatchMetric('Transitions', { label: 'transitions' }),
        trainwatchMetric('AlertsSent', { label: 'alerts sent' }),
        trainwatchMetric('AlertsFailed', { label: 'alerts failed' }),
        trainwatchMetric('RunErrors', { label: 'runs not evaluated' }),
        trainwatchMetric('RunsEnded', { label: 'runs ended (files moved)' }),
      ],
    }),
  );
  dashboard.addWidgets(
    new cloudwatch.GraphWidget({
      title: 'Sweep duration (ms)',
      width: 12,
      left: [
        trainwatchMetric('SweepDuration', { statistic: 'p50', period: minute, label: 'sweep p50' }),
        trainwatchMetric('SweepDuration', { statistic: 'Maximum', period: minute, label: 'sweep max' }),
      ],
      right: perFunction((fn) => fn.metricDuration({ statistic: 'Maximum', period: minute })),
      rightYAxis: { label: 'Lambda duration max (ms)', showUnits: false },
    }),
    new cloudwatch.GraphWidget({
      title: 'Invocations, errors, throttles',
      width: 12,
      left: perFunction((fn) => fn.metricInvocations({ period: Duration.minutes(5) })),
      right: [
        ...perFunction((fn) => fn.metricErrors({ period: Duration.minutes(5) })).map((m) =>
          m.with({ label: `${m.label} errors` }),
        ),
        ...perFunction((fn) => fn.metricThrottles({ period: Duration.minutes(5) })).map((m) =>
          m.with({ label: `${m.label} throttles` }),
        ),
      ],
    }),
  );
  dashboard.addWidgets(
    new cloudwatch.GraphWidget({
      title: 'Degraded runs (throughput drop, stragglers, idle GPUs, data-bound)',
      width: 24,
      left: HEALTH_FINDING_KINDS.map((finding) =>
        trainwatchMetric('DegradedRuns', { finding, statistic: 'Maximum', period: minute, label: finding }),
      ),
    }),
  );
  dashboard.addWidgets(
    new cloudwatch.AlarmStatusWidget({ title: 'Watchdog alarms', alarms: [...props.alarms], width: 12 }),
    new cloudwatch.GraphWidget({
      title: 'Dead-letter queue depth',
      width: 12,
      left: [props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' })],
    }),
  );
  return dashboard;
}
