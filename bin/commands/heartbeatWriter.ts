import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ConfigError, TrainwatchError } from '../../lambdas/core/base/errors.js';
import { runKey } from '../../lambdas/core/model/listing.js';
import {
  MAX_TEXT_BYTES,
  nodeFile,
  normalisePrefix,
  RunFile,
  type RunFileName,
} from '../../lambdas/core/protocol/files.js';
import { runIdProblem } from '../../lambdas/core/protocol/runId.js';
import { MetadataSchema } from '../../lambdas/core/protocol/schemas.js';

/** S3 refused or could not be reached; the message names the object. */
export class HeartbeatWriteError extends TrainwatchError {}

type Env = Readonly<Record<string, string | undefined>>;
type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every heartbeat command takes; each falls back to the environment the Python client reads. */
export const TARGET_OPTIONS = {
  bucket: { type: 'string' },
  prefix: { type: 'string' },
  'run-id': { type: 'string' },
  'log-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

export const TARGET_USAGE = `  --run-id ID      default TRAINWATCH_RUN_ID
  --bucket NAME    default TRAINWATCH_BUCKET
  --prefix P       default TRAINWATCH_PREFIX, else training-runs
  --log-file PATH  also upload the tail of this log to logs/training_log_latest.txt
S3 is reached as the AWS SDK is configured (AWS_REGION, AWS_ENDPOINT_URL, credentials).`;

/** parseArgs that reports a bad command line as a ConfigError (one line, exit 1), not a stack. */
export function parseCommandLine<O extends Options>(args: string[], options: O, usage: string) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new ConfigError(`${(e as Error).message}\n${usage}`);
  }
}

/** Where one run's files go, and the client that writes them. */
export class RunFileWriter {
  constructor(
    readonly bucket: string,
    readonly prefix: string,
    readonly runId: string,
    private readonly s3: S3Client,
  ) {}

  /** The target from `--bucket/--prefix/--run-id`, else TRAINWATCH_BUCKET/PREFIX/RUN_ID. */
  static from(
    values: { bucket?: string; prefix?: string; 'run-id'?: string },
    env: Env,
    s3?: S3Client,
  ): RunFileWriter {
    const bucket = (values.bucket ?? env.TRAINWATCH_BUCKET ?? '').trim();
    if (!bucket) throw new ConfigError('a bucket is required: pass --bucket or set TRAINWATCH_BUCKET');
    const runId = (values['run-id'] ?? env.TRAINWATCH_RUN_ID ?? '').trim();
    const problem = runId
      ? runIdProblem(runId)
      : 'a run id is required: pass --run-id or set TRAINWATCH_RUN_ID';
    if (problem) throw new ConfigError(problem);
    const { prefix, problem: prefixProblem } = normalisePrefix(
      values.prefix ?? env.TRAINWATCH_PREFIX ?? 'training-runs',
    );
    if (prefixProblem) throw new ConfigError(`prefix ${JSON.stringify(prefix)} ${prefixProblem}`);
    return new RunFileWriter(bucket, prefix, runId, s3 ?? defaultS3(env));
  }

  key(file: RunFileName): string {
    return runKey(this.prefix, this.runId, RunFile[file]);
  }

  async put(file: RunFileName, body: string | Uint8Array, contentType: string): Promise<void> {
    await this.putKey(this.key(file), body, contentType);
  }

  /** `nodes/{rank}.json` (protocol v1.1): this node's file. */
  async putNode(rank: number, value: Record<string, unknown>): Promise<void> {
    await this.putKey(this.nodeKey(rank), JSON.stringify(value), 'application/json');
  }

  /** This node's file as it is now, as an object; undefined when there is none or it is unreadable. */
  async readNode(rank: number): Promise<Record<string, unknown> | undefined> {
    const key = this.nodeKey(rank);
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const value: unknown = JSON.parse((await out.Body?.transformToString()) ?? '');
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : undefined;
    } catch (e) {
      const name = (e as { name?: string }).name;
      if (name === 'NoSuchKey' || name === 'AccessDenied' || e instanceof SyntaxError) return undefined;
      throw this.failure(key, e);
    }
  }

  private nodeKey(rank: number): string {
    return runKey(this.prefix, this.runId, nodeFile(rank));
  }

  private async putKey(key: string, body: string | Uint8Array, contentType: string): Promise<void> {
    await this.call(key, () =>
      this.s3.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }),
      ),
    );
  }

  async putJson(file: RunFileName, value: Record<string, unknown>): Promise<void> {
    await this.put(file, JSON.stringify(value), 'application/json');
  }

  async delete(file: RunFileName): Promise<void> {
    await this.call(this.key(file), () =>
      this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(file) })),
    );
  }

  /** The current metadata.json as an object; {} when there is none or it is unreadable (we replace it). */
  async metadata(): Promise<Record<string, unknown>> {
    try {
      const out = await this.s3.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.key('metadata') }),
      );
      const value: unknown = JSON.parse((await out.Body?.transformToString()) ?? '');
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : {};
    } catch (e) {
      // Without s3:ListBucket, S3 answers a missing key with 403 (AccessDenied), not 404.
      const name = (e as { name?: string }).name;
      if (name === 'NoSuchKey' || name === 'AccessDenied' || e instanceof SyntaxError) return {};
      throw this.failure(this.key('metadata'), e);
    }
  }

  /** Writes metadata.json: `fields` (undefined ones skipped) over `base` (default: what is there), validated first. */
  async writeMetadata(
    fields: Record<string, unknown>,
    now: Date,
    base?: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    base ??= await this.metadata();
    const merged = { ...base, ...dropUndefined(fields), run_id: this.runId, last_update: now.toISOString() };
    const checked = MetadataSchema.safeParse(merged);
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      throw new ConfigError(`metadata.json would be rejected: ${issue.path.join('.')}: ${issue.message}`);
    }
    await this.putJson('metadata', merged);
    return merged;
  }

  /** Uploads the last 64 KiB of a log file (cut at a line start) as the run's log tail. */
  async uploadLogTail(path: string): Promise<void> {
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch (e) {
      throw new ConfigError(`cannot read --log-file ${path}: ${(e as Error).message}`);
    }
    if (data.length > MAX_TEXT_BYTES) {
      const tail = data.subarray(data.length - MAX_TEXT_BYTES);
      const newline = tail.indexOf(0x0a);
      data = newline >= 0 && newline < tail.length - 1 ? tail.subarray(newline + 1) : tail;
    }
    await this.put('log', data, 'text/plain; charset=utf-8');
  }

  private async call(key: string, send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (e) {
      throw this.failure(key, e);
    }
  }

  private failure(key: string, e: unknown): HeartbeatWriteError {
    const err = e as Error;
    return new HeartbeatWriteError(
      `could not reach s3://${this.bucket}/${key}: ${err.name}: ${err.message}`,
      { runId: this.runId },
      { cause: e },
    );
  }
}

function defaultS3(env: Env): S3Client {
  const endpoint = env.AWS_ENDPOINT_URL_S3?.trim() || env.AWS_ENDPOINT_URL?.trim() || undefined;
  return new S3Client({
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    maxAttempts: 3,
    // A heartbeat from a shell loop must never hang the loop on a dead network.
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000 },
  });
}

/** `key=value` pairs (repeatable `--set`, `--metric`): values are JSON when they parse, else strings. */
export function keyValues(pairs: readonly string[] | undefined, option: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new ConfigError(`${option} ${JSON.stringify(pair)} is not key=value`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a plain string
    }
    out[pair.slice(0, eq)] = value;
  }
  return out;
}

/** A number option (`--loss 0.5`), or a ConfigError naming it. */
export function numberOption(value: string | undefined, option: string, integer = false): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (integer && (!Number.isInteger(n) || n < 0)))
    throw new ConfigError(
      `${option} ${JSON.stringify(value)} must be ${integer ? 'an integer >= 0' : 'a number'}`,
    );
  return n;
}

/** The attempt from `--attempt`, else TRAINWATCH_ATTEMPT. */
export function attemptOption(value: string | undefined, env: Env): number | undefined {
  const raw = value ?? env.TRAINWATCH_ATTEMPT?.trim();
  if (!raw) return undefined;
  const n = numberOption(raw, value === undefined ? 'TRAINWATCH_ATTEMPT' : '--attempt', true)!;
  if (n < 1) throw new ConfigError(`attempt must be >= 1, not ${n}`);
  return n;
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** What a command needs from outside; tests pass their own. */
export interface CommandDeps {
  readonly env?: Env;
  readonly s3?: S3Client;
  readonly now?: () => Date;
  readonly stdin?: () => Promise<string>;
}

/** The EC2 instance id from IMDSv2 (a 1 s timeout each step), or undefined off EC2. */
export async function imdsInstanceId(env: Env, timeoutMs = 1_000): Promise<string | undefined> {
  if (env.AWS_EC2_METADATA_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const base = (env.AWS_EC2_METADATA_SERVICE_ENDPOINT?.trim() || 'http://169.254.169.254').replace(
    /\/+$/,
    '',
  );
  try {
    const token = await fetch(`${base}/latest/api/token`, {
      method: 'PUT',
      headers: { 'X-aws-ec2-metadata-token-ttl-seconds': '60' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!token.ok) return undefined;
    const id = await fetch(`${base}/latest/meta-data/instance-id`, {
      headers: { 'X-aws-ec2-metadata-token': await token.text() },
      signal: AbortSignal.timeout(timeoutMs),
    });
    return id.ok ? (await id.text()).trim() || undefined : undefined;
  } catch {
    return undefined; // off EC2, or IMDS unreachable from this container
  }
}
