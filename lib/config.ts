import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as logs from 'aws-cdk-lib/aws-logs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { parseDuration } from '../lambdas/core/base/duration.js';
import { ConfigError } from '../lambdas/core/base/errors.js';
import { DEFAULTS } from './defaults.js';
import { EMAIL } from './resolve.js';
import { fileFields } from './settings/index.js';

const duration = z
  .string()
  .refine((s) => parseDuration(s) !== undefined, 'is not a duration (use e.g. 90s, 10m, 2h, 7d)');

/** `1m`, `5 minutes`, `rate(5 minutes)` → whole minutes; anything else (cron, 90s) is rejected. */
export function scheduleMinutes(text: string): number | undefined {
  const rate = /^rate\(\s*(\d+)\s+minutes?\s*\)$/i.exec(text.trim());
  const minutes = rate
    ? Number(rate[1]) * 60_000
    : (parseDuration(text.replace(/\s*minutes?$/i, 'm')) ?? Number.NaN);
  const m = minutes / 60_000;
  return Number.isInteger(m) && m >= 1 && m <= 60 ? m : undefined;
}

const reserved = z.number().int().min(1).max(1000);

const RETENTION_DAYS = Object.values(logs.RetentionDays).filter((v): v is number => typeof v === 'number');

/**
 * The typed configuration of one deployment (cdk.json context `trainwatch`, or a JSON/YAML file). The
 * runtime settings come from the registry (`fileFields`); the rest are the stack's own.
 */
export const TrainwatchConfigSchema = z
  .strictObject({
    stackName: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/, 'must start with a letter; letters, digits and -')
      .default('Trainwatch'),
    account: z
      .string()
      .regex(/^\d{12}$/, 'must be a 12-digit AWS account id')
      .optional(),
    region: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'is not an AWS region (e.g. us-east-1)')
      .optional(),
    bucket: z
      .strictObject({
        name: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'is not an S3 bucket name'),
        enableEventBridge: z.boolean().default(true),
      })
      .optional(),
    ...fileFields(''),
    schedule: z
      .string()
      .default(`${DEFAULTS.scheduleMinutes}m`)
      .refine(
        (s) => scheduleMinutes(s) !== undefined,
        'must be whole minutes from 1 to 60: "1m", "5m" or "rate(5 minutes)"',
      ),
    thresholds: z.strictObject(fileFields('thresholds')).prefault({}),
    health: z.strictObject(fileFields('health')).prefault({}),
    pagerduty: z.strictObject(fileFields('pagerduty')).prefault({}),
    slack: z.strictObject(fileFields('slack')).prefault({}),
    alerts: z
      .strictObject({
        emails: z.array(z.string().regex(EMAIL, 'is not an email address')).default([]),
        ...fileFields('alerts'),
        slackWebhookKeyArn: z
          .string()
          .regex(/^arn:aws[\w-]*:kms:/, 'is not a KMS key ARN')
          .optional(),
        alarmTopicArn: z
          .string()
          .regex(/^arn:aws[\w-]*:sns:[\w-]+:\d{12}:[\w-]+$/, 'is not an SNS topic ARN')
          .optional(),
      })
      .prefault({}),
    remediation: z
      .strictObject({
        enabled: z.boolean().default(true),
        ...fileFields('remediation'),
        eks: z.strictObject(fileFields('remediation.eks')).prefault({}),
      })
      .prefault({}),
    removalPolicy: z.enum(['retain', 'destroy']).default('retain'),
    retention: z
      .strictObject({
        logsDays: z
          .number()
          .refine(
            (d) => RETENTION_DAYS.includes(d),
            `must be one of ${RETENTION_DAYS.join(', ')} (9999: never expire)`,
          )
          .default(DEFAULTS.logRetentionDays),
        ...fileFields('retention'),
      })
      .prefault({}),
    sweep: z
      .strictObject({
        memoryMb: z.number().int().min(128).max(10240).default(DEFAULTS.sweepMemoryMb),
        timeout: duration.default(`${DEFAULTS.sweepTimeoutSeconds}s`),
      })
      .prefault({}),
    reservedConcurrency: z
      .union([
        z.literal(false),
        z.strictObject({
          sweep: reserved.default(DEFAULTS.reservedConcurrency.sweep),
          sentinel: reserved.default(DEFAULTS.reservedConcurrency.sentinel),
          remediate: reserved.default(DEFAULTS.reservedConcurrency.remediate),
          slack: reserved.default(DEFAULTS.reservedConcurrency.slack),
        }),
      ])
      .prefault({}),
    accessLogs: z
      .strictObject({
        enabled: z.boolean().default(false),
        bucketName: z
          .string()
          .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'is not an S3 bucket name')
          .optional(),
      })
      .prefault({}),
    encryption: z
      .strictObject({
        customerManagedKey: z.boolean().default(false),
      })
      .prefault({}),
    tags: z.record(z.string(), z.string()).default({}),
  })
  .refine(
    (c) => c.alerts.emails.length > 0 || c.alerts.slackWebhookParameter !== '' || !!c.slack.botTokenParameter,
    {
      message:
        'no alert channel: add an address to alerts.emails, set alerts.slackWebhookParameter or slack.botTokenParameter',
      path: ['alerts', 'emails'],
    },
  );

export type TrainwatchConfig = z.output<typeof TrainwatchConfigSchema>;
export type TrainwatchConfigInput = z.input<typeof TrainwatchConfigSchema>;

/** Validates a configuration object; throws ConfigError listing every problem with its path. */
export function parseConfig(raw: unknown, source = 'configuration'): TrainwatchConfig {
  const result = TrainwatchConfigSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const lines = result.error.issues.map(
    (i) => `  - ${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`,
  );
  throw new ConfigError(`invalid trainwatch ${source}:\n${lines.join('\n')}`, { source });
}

/** Reads a JSON or YAML config file. */
export function readConfigFile(path: string): unknown {
  const full = resolve(path);
  if (!existsSync(full))
    throw new ConfigError(`trainwatch config file ${full} does not exist`, { path: full });
  const text = readFileSync(full, 'utf8');
  try {
    return /\.ya?ml$/i.test(full) ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw new ConfigError(
      `trainwatch config file ${full} is not valid ${/\.ya?ml$/i.test(full) ? 'YAML' : 'JSON'}: ${(e as Error).message}`,
      { path: full },
    );
  }
}

/**
 * The configuration of a CDK app: the file named by context `trainwatch:config` (`-c
 * trainwatch:config=trainwatch.yaml`) when given, else the `trainwatch` object in cdk.json context.
 */
export function configFromContext(tryGetContext: (key: string) => unknown): TrainwatchConfig {
  const file = tryGetContext('trainwatch:config');
  if (typeof file === 'string' && file.trim())
    return parseConfig(readConfigFile(file), `config file ${file}`);
  let raw = tryGetContext('trainwatch');
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch {
      throw new ConfigError('context "trainwatch" must be a JSON object', {});
    }
  }
  return parseConfig(raw, 'context "trainwatch" (cdk.json)');
}
