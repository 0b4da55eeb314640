import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS } from './defaults.js';

/** What the watchdog's own alarms watch. */
export interface WatchdogAlarmsProps {
  readonly sweep: lambda.IFunction;
  readonly schedule: Duration;
  readonly others: Readonly<Record<string, lambda.IFunction>>;
  readonly deadLetterQueue: sqs.IQueue;
  readonly topic: sns.ITopic;
}

/** A custom metric the functions publish (EMF, namespace Trainwatch, dimension service). */
export function trainwatchMetric(
  name: string,
  opts: { statistic?: string; period?: Duration; state?: string; finding?: string; label?: string } = {},
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS.namespace,
    metricName: name,
    dimensionsMap: {
      service: METRICS.service,
      ...(opts.state ? { State: opts.state } : {}),
      ...(opts.finding ? { Finding: opts.finding } : {}),
    },
    statistic: opts.statistic ?? 'Sum',
    period: opts.period ?? Duration.minutes(5),
    label: opts.label,
  });
}

/**
 * Watching the watchdog: the sweep errors, is throttled, runs longer than its period, or has not run for
 * three periods; failed invocations wait in the dead-letter queue; alerts fail to go out. Each alarm
 * notifies on ALARM and on OK.
 */
export class WatchdogAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: WatchdogAlarmsProps) {
    super(scope, id);
    const period = props.schedule;
    const add = (alarmId: string, alarmProps: cloudwatch.AlarmProps) => {
      const alarm = new cloudwatch.Alarm(this, alarmId, alarmProps);
      alarm.addAlarmAction(new actions.SnsAction(props.topic));
      alarm.addOkAction(new actions.SnsAction(props.topic));
      this.alarms.push(alarm);
    };
    add('SweepErrors', {
      alarmDescription: 'The trainwatch sweep failed (error or timeout) in 2 of the last 3 periods.',
      metric: props.sweep.metricErrors({ period }),
      threshold: 1,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    add('SweepThrottles', {
      alarmDescription: 'The trainwatch sweep was throttled: the account is out of Lambda concurrency.',
      metric: props.sweep.metricThrottles({ period }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    add('SweepRunsLong', {
      alarmDescription:
        'A trainwatch sweep took longer than its schedule period: sweeps overlap (safe, but wasteful). Raise memory or the period.',
      metric: props.sweep.metricDuration({ period, statistic: 'Maximum' }),
      threshold: period.toMilliseconds(),
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    add('SweepNotRunning', {
      alarmDescription:
        'The trainwatch sweep has not run for 3 schedule periods: runs are not being watched.',
      metric: props.sweep.metricInvocations({ period }),
      threshold: 1,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      // No datapoint at all is exactly the failure this alarm exists for.
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
    for (const [name, fn] of Object.entries(props.others)) {
      add(`${name}Errors`, {
        alarmDescription: `The trainwatch ${name.toLowerCase()} function failed.`,
        metric: fn.metricErrors({ period: Duration.minutes(5) }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
    add('DeadLetters', {
      alarmDescription:
        'trainwatch kept a failed invocation or an undeliverable event in its dead-letter queue: inspect and redrive it.',
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    add('AlertsFailed', {
      alarmDescription:
        'trainwatch could not deliver an alert (Slack or SNS): check the webhook parameter and the topic.',
      metric: trainwatchMetric('AlertsFailed'),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
}
