import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import {
  configFromContext,
  parseConfig,
  scheduleMinutes,
  type TrainwatchConfigInput,
} from '../../lib/config.js';
import { envDuration } from '../../lib/environment.js';
import { PROJECT_ROOT } from '../../lib/functions.js';
import type { TrainingRunMonitorProps } from '../../lib/props.js';
import { resolveProps } from '../../lib/resolve.js';
import { buildStack } from './synth.js';

function configError(raw: unknown): string {
  try {
    parseConfig(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
}

function propsError(props: TrainingRunMonitorProps): string {
  try {
    resolveProps(props);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration file / cdk.json context', () => {
  it('fills every default from an empty object', () => {
    const c = parseConfig({});
    // Unset: learned from each run; the functions get no variable for them (tested in resources.test.ts).
    expect(c.thresholds.staleAfter).toBeUndefined();
    expect(c.thresholds.stallAfter).toBeUndefined();
    expect(c).toMatchObject({
      stackName: 'Trainwatch',
      prefix: 'training-runs',
      schedule: '1m',
      thresholds: {
        startupGrace: '15m',
        phaseStaleAfter: { setup: '30m', checkpointing: '30m', evaluation: '30m', validation: '30m' },
      },
      alerts: { emails: [], slackWebhookParameter: '/trainwatch/slack-webhook-url' },
      profile: 'production',
      remediation: {
        enabled: true,
        restartPolicy: 'none',
        restartCommands: {},
        managedTag: 'trainwatch:managed=true',
      },
      removalPolicy: 'retain',
      retention: { logsDays: 30, runsDays: 90, historyDays: 90 },
      concurrency: 16,
      sweep: { memoryMb: 512, timeout: '120s' },
    });
  });

  it.each([
    [{ schedule: 'cron(0 * * * ? *)' }, 'schedule: must be whole minutes from 1 to 60'],
    [{ schedule: '90s' }, 'schedule: must be whole minutes'],
    [
      { profile: 'pytorch' },
      'profile: must be one of basic, nccl, stall, production, or a custom profile object',
    ],
    [
      { alerts: { emails: [], slackWebhookParameter: '' } },
      'alerts.emails: no alert channel: add an address to alerts.emails',
    ],
    [{ alerts: { emails: ['oncall@'] } }, 'alerts.emails.0: is not an email address'],
    [{ alerts: { emails: [''] } }, 'alerts.emails.0: is not an email address'],
    [{ scheduel: '1m' }, '(root): Unrecognized key: "scheduel"'],
    [{ thresholds: { staleAfter: 'ten minutes' } }, 'thresholds.staleAfter: is not a duration'],
    [
      { remediation: { restartPolicy: 'always' } },
      'remediation.restartPolicy: must be one of none, transient, aggressive',
    ],
    [{ remediation: { managedTag: 'managed' } }, 'remediation.managedTag: must be key=value'],
    [
      { remediation: { restartCommands: { 'llama-70b': '' } } },
      'remediation.restartCommands.llama-70b: is empty',
    ],
    [{ retention: { logsDays: 31 } }, 'retention.logsDays: must be one of 1, 3, 5, 7, 14, 30'],
    [{ bucket: { name: 'My_Bucket' } }, 'bucket.name: is not an S3 bucket name'],
    [{ region: 'mars-1' }, 'region: is not an AWS region'],
  ])('rejects %j naming the setting and the fix', (raw, message) => {
    const text = configError(raw);
    expect(text).toContain('invalid trainwatch configuration');
    expect(text).toContain(message);
  });

  it('lists every problem at once', () => {
    const text = configError({ schedule: 'hourly', profile: 'x', concurrency: 0 });
    expect(text.split('\n').filter((l) => l.startsWith('  - '))).toHaveLength(3);
  });

  it('accepts a custom restart policy object and per-job restart commands (string or object)', () => {
    const c = parseConfig({
      remediation: {
        restartPolicy: { extends: 'transient', max_restarts: 2 },
        restartCommands: {
          '*': 'sudo systemctl restart train',
          llm: { command: '/opt/train/resume.sh', user: 'ubuntu' },
        },
      },
    });
    expect(c.remediation.restartPolicy).toEqual({ extends: 'transient', max_restarts: 2 });
    expect(c.remediation.restartCommands.llm).toEqual({ command: '/opt/train/resume.sh', user: 'ubuntu' });
  });

  it('reads the file named by context trainwatch:config (YAML or JSON) instead of cdk.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tw-config-'));
    writeFileSync(join(dir, 'tw.yaml'), 'prefix: jobs\nschedule: 5m\nalerts:\n  emails: [a@example.com]\n');
    writeFileSync(join(dir, 'tw.json'), JSON.stringify({ prefix: 'other' }));
    const ctx = (values: Record<string, unknown>) => (key: string) => values[key];
    expect(
      configFromContext(ctx({ 'trainwatch:config': join(dir, 'tw.yaml'), trainwatch: { prefix: 'x' } })),
    ).toMatchObject({
      prefix: 'jobs',
      schedule: '5m',
      alerts: { emails: ['a@example.com'] },
    });
    expect(configFromContext(ctx({ 'trainwatch:config': join(dir, 'tw.json') })).prefix).toBe('other');
    expect(configFromContext(ctx({ trainwatch: '{"prefix":"from-cli"}' })).prefix).toBe('from-cli');
    expect(() => configFromContext(ctx({ 'trainwatch:config': join(dir, 'missing.yaml') }))).toThrow(
      /does not exist/,
    );
  });
});

describe('runtime configuration checked at synth', () => {
  it.each([
    [
      { remediation: { restartCommands: { '*': 'python train.py && rm -rf /' } } },
      'the remediate function would reject remediation.restartCommands (TRAINWATCH_RESTART_COMMANDS)',
    ],
    [
      { remediation: { restartPolicy: { crash: { restart_on: 'nccl' } } } },
      'would reject remediation.restartPolicy (TRAINWATCH_RESTART_POLICY)',
    ],
    [{ profile: { name: 'mine', signals: [{ name: 'Not Snake' }] } }, 'signals.0.name'],
  ])('fails synth on %j, which the Lambda would reject at cold start', (props, message) => {
    expect(() => buildStack(props as TrainwatchConfigInput)).toThrow(message);
  });

  it('accepts a custom profile that extends a built-in one', () => {
    const { stack } = buildStack({
      profile: {
        name: 'team',
        extends: ['production'],
        signals: [
          {
            name: 'dataloader_hang',
            pattern: 'DataLoader worker .* is killed',
            error_type: 'hang',
            severity: 'error',
            subsystem: 'python',
            priority: 500,
          },
        ],
      },
    });
    expect(JSON.parse(stack.monitor.settings.profile)).toMatchObject({
      name: 'team',
      extends: ['production'],
    });
  });
});

describe('schedule', () => {
  it.each([
    ['1m', 1],
    ['5m', 5],
    ['5 minutes', 5],
    ['rate(1 minute)', 1],
    ['rate(15 minutes)', 15],
    ['1h', 60],
    ['90s', undefined],
    ['0m', undefined],
    ['2h', undefined],
    ['cron(0/5 * * * ? *)', undefined],
    ['rate(1 hour)', undefined],
  ])('%s is %s minutes', (text, minutes) => {
    expect(scheduleMinutes(text)).toBe(minutes);
  });
});

describe('construct props', () => {
  it.each([
    [
      { schedule: Duration.seconds(90) },
      'schedule must be a whole number of minutes from 1 to 60 (got 1 minute 30 seconds)',
    ],
    [{ schedule: Duration.hours(2) }, 'schedule must be a whole number of minutes from 1 to 60'],
    [{ prefix: '' }, 'prefix "" must be a non-empty S3 key prefix'],
    [{ prefix: 'runs/*' }, 'prefix "runs/*" must be a non-empty S3 key prefix'],
    [
      { profile: 'pytorch' as never },
      'profile "pytorch" is unknown; use one of basic, nccl, stall, production',
    ],
    [{ alertEmails: ['not-an-email'] }, 'alertEmails "not-an-email" is not an email address'],
    [{ remediation: { ssmOutputPrefix: 'training-runs/ssm' } }, 'must not overlap the run prefix'],
    [
      { endedPrefix: 'training-runs/ended' },
      'endedPrefix "training-runs/ended" must not overlap the run prefix',
    ],
    [{ prefix: 'runs', endedPrefix: 'runs' }, 'must not overlap the run prefix'],
    [{ endedPrefix: 'trainwatch-ssm-output' }, 'must not overlap remediation.ssmOutputPrefix'],
    [{ remediation: { restartCommands: { '*': 'x'.repeat(3000) } } }, 'Lambda environment limit'],
    [{ sweepTimeout: Duration.minutes(20) }, 'sweepTimeout must be from 10 seconds to 15 minutes'],
    [{ concurrency: 0 }, 'concurrency must be an integer from 1 to 256'],
    [{ thresholds: { staleAfter: Duration.seconds(0) } }, 'thresholds.staleAfter must be longer than zero'],
  ])('rejects %o', (props, message) => {
    expect(propsError(props as TrainingRunMonitorProps)).toContain(message);
  });

  it('normalises the prefix (no leading or trailing slash)', () => {
    expect(resolveProps({ prefix: '/jobs/llm/' }).prefix).toBe('jobs/llm');
  });
});

describe('environment durations', () => {
  it.each([
    [Duration.minutes(10), '10m'],
    [Duration.hours(2), '2h'],
    [Duration.seconds(90), '90s'],
    [Duration.minutes(90), '90m'],
  ])('%s is written as %s', (d, text) => {
    expect(envDuration(d)).toBe(text);
  });
});

describe('the shipped configuration', () => {
  it('cdk.json: the trainwatch context is valid and synthesizes', () => {
    const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
      app: string;
      context: Record<string, unknown>;
    };
    expect(cdkJson.app).toBe('npx tsx bin/app.ts');
    const config = configFromContext((key) => cdkJson.context[key]);
    const { stack } = buildStack(config);
    expect(stack.monitor.settings.prefix).toBe(config.prefix);
    // Tests build apps without cdk.json: only the trainwatch object may change what is synthesized.
    expect(Object.keys(cdkJson.context)).toEqual(['trainwatch']);
  });
});

describe('the documented example', () => {
  it('docs/CONFIGURATION.md: the full example configuration synthesizes as described', () => {
    const doc = readFileSync(join(PROJECT_ROOT, 'docs', 'CONFIGURATION.md'), 'utf8');
    const yaml = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(yaml).toBeDefined();
    const { stack } = buildStack(parseYaml(yaml!) as TrainwatchConfigInput);
    const s = stack.monitor.settings;
    expect(stack.monitor.bucket.bucketName).toBe('acme-ml-training');
    expect(s.thresholds.stallAfter?.toMinutes()).toBe(45);
    expect(s.remediation.restartPolicy).toEqual({ extends: 'transient', max_restarts: 2 });
    expect(s.thresholds.remindEvery?.toHours()).toBe(2);
  });
});
