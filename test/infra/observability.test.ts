import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/defaults.js';
import { logicalId, synthStack } from './synth.js';

// A 5-minute schedule, so that every period below is visibly derived from it.
const { template: t, stack } = synthStack({ schedule: 'rate(5 minutes)' });
const topic = { Ref: logicalId(t, 'AWS::SNS::Topic', 'MonitorAlertTopic') };
const sweep = { Ref: logicalId(t, 'AWS::Lambda::Function', 'MonitorSweepFunction') };

function alarm(name: string): Record<string, unknown> {
  return t.findResources('AWS::CloudWatch::Alarm')[
    logicalId(t, 'AWS::CloudWatch::Alarm', `MonitorAlarms${name}`)
  ]!.Properties as Record<string, unknown>;
}

describe('watchdog alarms', () => {
  it('raises eight alarms, each notifying the alert topic on ALARM and OK', () => {
    const alarms = Object.values(t.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(8);
    for (const a of alarms) expect(a.Properties).toMatchObject({ AlarmActions: [topic], OKActions: [topic] });
  });

  it('alarms when the sweep has not run for 3 schedule periods, missing data counting as not run', () => {
    expect(alarm('SweepNotRunning')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: [{ Name: 'FunctionName', Value: sweep }],
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 3,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
  });

  it('alarms when the sweep errors in 2 of 3 periods, is throttled, or runs longer than its period', () => {
    expect(alarm('SweepErrors')).toMatchObject({
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: sweep }],
      Period: 300,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(alarm('SweepThrottles')).toMatchObject({ MetricName: 'Throttles', Threshold: 1, Period: 300 });
    expect(alarm('SweepRunsLong')).toMatchObject({
      MetricName: 'Duration',
      Statistic: 'Maximum',
      Threshold: 300_000,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('alarms on errors of the sentinel and remediation functions', () => {
    for (const name of ['Sentinel', 'Remediate'])
      expect(alarm(`${name}Errors`)).toMatchObject({
        MetricName: 'Errors',
        Dimensions: [
          {
            Name: 'FunctionName',
            Value: { Ref: logicalId(t, 'AWS::Lambda::Function', `Monitor${name}Function`) },
          },
        ],
      });
  });

  it('alarms as soon as the dead-letter queue holds a message', () => {
    expect(alarm('DeadLetters')).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [logicalId(t, 'AWS::SQS::Queue', 'MonitorDeadLetterQueue'), 'QueueName'] },
        },
      ],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('alarms when an alert could not be delivered (custom metric AlertsFailed)', () => {
    expect(alarm('AlertsFailed')).toMatchObject({
      Namespace: 'Trainwatch',
      MetricName: 'AlertsFailed',
      Dimensions: [{ Name: 'service', Value: 'trainwatch' }],
      Statistic: 'Sum',
      Threshold: 1,
    });
  });

  it('schedules the sweep from the configured rate', () => {
    t.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [
        Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 } }),
      ],
    });
  });
});

describe('dashboard', () => {
  const dashboards = t.findResources('AWS::CloudWatch::Dashboard');
  const body = JSON.stringify(stack.resolve(Object.values(dashboards)[0]!.Properties.DashboardBody));

  it('is one dashboard', () => {
    expect(Object.keys(dashboards)).toHaveLength(1);
  });

  it('graphs runs by state: one Runs series per state', () => {
    expect(body).toContain('Runs by state');
    for (const state of METRICS.states) expect(body).toContain(`\\"State\\",\\"${state}\\"`);
  });

  it('graphs transitions, alerts sent and failed, and sweep duration from the custom metrics', () => {
    for (const name of [
      'Transitions',
      'AlertsSent',
      'AlertsFailed',
      'RunErrors',
      'RunsEnded',
      'SweepDuration',
    ])
      expect(body).toContain(`\\"Trainwatch\\",\\"${name}\\"`);
  });

  it('graphs the runs in each degraded finding of the health rules (DegradedRuns by Finding)', () => {
    expect(body).toContain('Degraded runs');
    for (const finding of ['throughput_drop', 'straggler', 'idle_gpus', 'data_bound'])
      expect(body).toContain(
        `\\"Trainwatch\\",\\"DegradedRuns\\",\\"Finding\\",\\"${finding}\\",\\"service\\",\\"trainwatch\\"`,
      );
  });

  it('shows the Lambda built-ins, the dead-letter queue and the alarm states', () => {
    for (const text of ['AWS/Lambda', 'Duration', 'Errors', 'Throttles', 'AWS/SQS', 'Watchdog alarms'])
      expect(body).toContain(text);
  });
});
