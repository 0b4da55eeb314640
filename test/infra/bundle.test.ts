import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Bundle, buildBundles, externalImports, SLACK_APP_CONFIG } from '../../bench/bundles.js';
import { signSlackRequest } from '../../lambdas/adapters/channels/slack/slackSignature.js';
import { CLASSIFY_CHUNK } from '../../lambdas/adapters/loaders/classifier.js';
import { EKS_CHUNK } from '../../lambdas/adapters/platforms/eks/load.js';
import { liveKey } from '../../lambdas/adapters/stores/dynamoStateStore.js';
import { loadConfig } from '../../lambdas/config.js';
import { awsClients } from '../../local/awsClients.js';
import { setupLocal } from '../../local/setup.js';
import { type SlackServer, startSlackServer } from '../support/slackServer.js';

// Real bundling with local esbuild (no Docker), once for the file; then each bundle is imported in a child
// Node process, as Lambda would, and its handler is called against the emulator.
const endpoint = inject('motoEndpoint');
const region = 'us-east-1';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const s3 = new S3Client({ endpoint, region, credentials, forcePathStyle: true, maxAttempts: 1 });
const ddb = new DynamoDBClient({ endpoint, region, credentials, maxAttempts: 1 });
const ssm = new SSMClient({ endpoint, region, credentials, maxAttempts: 1 });
const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const bucket = `tw-bundle-${id}`;
const table = `tw-bundle-${id}`;
const slackParam = `/tw-bundle/${id}/slack-webhook-url`;
const secretParam = `/tw-bundle/${id}/slack-signing-secret`;
const signingSecret = randomBytes(16).toString('hex');
let slack: SlackServer;
const BUDGET_BYTES = 1024 * 1024;

let built: { outdir: string; bundles: Bundle[] };
const bundle = (name: Bundle['name']) => built.bundles.find((b) => b.name === name)!;

beforeAll(async () => {
  built = buildBundles();
  slack = await startSlackServer();
  // As deployed: the webhook URL is a SecureString the functions read once per cold start.
  await ssm.send(new PutParameterCommand({ Name: slackParam, Type: 'SecureString', Value: slack.url }));
  await ssm.send(new PutParameterCommand({ Name: secretParam, Type: 'SecureString', Value: signingSecret }));
  // The bucket and table exactly as the local mode and the stack define them.
  const config = loadConfig({
    TRAINWATCH_BUCKET: bucket,
    TRAINWATCH_TABLE: table,
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: region,
  });
  await setupLocal(config, awsClients({ region, endpoint, maxAttempts: 1 }));
}, 120_000);

afterAll(async () => {
  if (built) rmSync(built.outdir, { recursive: true, force: true });
  await slack?.close();
});

/** What the last invoked bundle wrote (its log lines, then its result). */
let lastStdout = '';

/** Imports the bundle in a fresh `node --enable-source-maps` and returns what its handler returned. */
async function invoke(
  b: Bundle,
  event: unknown,
  env: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const script = [
    `const { handler } = await import(${JSON.stringify(pathToFileURL(b.file).href)});`,
    `const result = await handler(${JSON.stringify(event)});`,
    'process.stdout.write("\\nRESULT " + JSON.stringify(result));',
  ].join('\n');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--enable-source-maps', '--input-type=module', '-e', script],
    {
      timeout: 30_000,
      env: {
        PATH: process.env.PATH,
        AWS_ENDPOINT_URL: endpoint,
        AWS_REGION: region,
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        AWS_MAX_ATTEMPTS: '1',
        TRAINWATCH_BUCKET: bucket,
        TRAINWATCH_PREFIX: 'training-runs',
        TRAINWATCH_TABLE: table,
        TRAINWATCH_SLACK_WEBHOOK_PARAM: slackParam,
        POWERTOOLS_METRICS_NAMESPACE: 'Trainwatch',
        POWERTOOLS_SERVICE_NAME: 'trainwatch',
        ...env,
      },
    },
  );
  lastStdout = stdout;
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`no result from ${b.name}:\n${stdout}`);
  return JSON.parse(line.slice('RESULT '.length)) as Record<string, unknown>;
}

describe('bundles', () => {
  it.each(['sweep', 'sentinel', 'remediate', 'slack'] as const)(
    '%s is one minified ESM file with a source map, its own code only, under 1 MiB',
    (name) => {
      const b = bundle(name);
      expect(existsSync(b.file)).toBe(true);
      const code = readFileSync(b.file, 'utf8');
      expect(code.startsWith("import{createRequire as __twRequire}from'node:module'")).toBe(true);
      expect(code).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      expect(code.length).toBeLessThan(BUDGET_BYTES);
      const sources = (JSON.parse(readFileSync(`${b.file}.map`, 'utf8')) as { sources: string[] }).sources;
      expect(sources.some((s) => s.endsWith(`lambdas/handlers/${name}.ts`))).toBe(true);
      // The runtime provides SDK v3: not one of its files may be bundled.
      expect(sources.filter((s) => /node_modules\/@aws-sdk\//.test(s))).toEqual([]);
    },
  );

  it.each(['sweep', 'sentinel'] as const)('%s has no Slack client in its bundle', (name) => {
    const b = bundle(name);
    const sources = (JSON.parse(readFileSync(`${b.file}.map`, 'utf8')) as { sources: string[] }).sources;
    // Source paths are relative to the bundle (under node_modules/.cache): match the package, not the folder.
    expect(sources.filter((s) => /@slack\/|render\/slack\.ts|slackAppNotifier/.test(s))).toEqual([]);
  });

  it.each(['sweep', 'sentinel', 'remediate', 'slack'] as const)(
    '%s stays within the 250 KB budget',
    (name) => {
      expect(readFileSync(bundle(name).file).length).toBeLessThanOrEqual(250 * 1024);
    },
  );

  it.each(['sweep', 'sentinel', 'remediate'] as const)(
    "%s carries each Slack channel as its own file, imported on the first Slack alert; only the app's has the Web API client",
    (name) => {
      const b = bundle(name);
      expect(b.chunks.map((f) => basename(f)).filter((f) => f !== EKS_CHUNK)).toEqual([
        'classify.mjs',
        'slack-webhook.mjs',
        'slack-app.mjs',
      ]);
      const code = readFileSync(b.file, 'utf8');
      expect(code).toContain('new URL("./slack-webhook.mjs",import.meta.url)');
      expect(code).toContain('new URL("./slack-app.mjs",import.meta.url)');
      const sourcesOf = (f: string) =>
        (JSON.parse(readFileSync(`${f}.map`, 'utf8')) as { sources: string[] }).sources;
      const [webhook, app] = b.chunks.slice(1).map(sourcesOf) as [string[], string[]];
      expect(webhook.some((s) => s.includes('@slack/webhook/'))).toBe(true);
      expect(webhook.filter((s) => /@slack\/web-api\/|slackAppNotifier/.test(s))).toEqual([]);
      expect(app.some((s) => s.includes('@slack/web-api/'))).toBe(true);
      expect(app.some((s) => s.endsWith('lambdas/adapters/channels/slack/slackAppNotifier.ts'))).toBe(true);
      for (const sources of [webhook, app]) expect(sources.filter((s) => /@aws-sdk\//.test(s))).toEqual([]);
    },
  );

  it('remediate carries the EKS platform as its own file, eks.mjs, imported on the first run on EKS', async () => {
    const b = bundle('remediate');
    expect(b.chunks.map((f) => basename(f))).toEqual([
      'classify.mjs',
      'slack-webhook.mjs',
      'slack-app.mjs',
      EKS_CHUNK,
    ]);
    const code = readFileSync(b.file, 'utf8');
    expect(code).toContain(`new URL("./${EKS_CHUNK}",import.meta.url)`);
    // The token's prefix: in the chunk, never in the handler.
    expect(code).not.toContain('k8s-aws-v1.');
    const chunk = join(b.dir, EKS_CHUNK);
    expect(readFileSync(chunk, 'utf8')).toContain('k8s-aws-v1.');
    const sources = (JSON.parse(readFileSync(`${chunk}.map`, 'utf8')) as { sources: string[] }).sources;
    expect(sources.some((s) => s.endsWith('lambdas/adapters/platforms/eks/token.ts'))).toBe(true);
    expect(sources.filter((s) => /node_modules\/@aws-sdk\//.test(s))).toEqual([]);
    const handler = (JSON.parse(readFileSync(`${b.file}.map`, 'utf8')) as { sources: string[] }).sources;
    expect(handler.filter((s) => /adapters\/platforms\/eks\/(?!load\.ts)/.test(s))).toEqual([]);
    // The chunk loads on its own, as loadEks() imports it in Lambda.
    const script = `const m = await import(${JSON.stringify(pathToFileURL(chunk).href)}); process.stdout.write(typeof m.eksCluster);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, AWS_REGION: region },
    });
    expect(stdout).toBe('function');
  });

  it.each(['sweep', 'sentinel', 'slack'] as const)(
    '%s has no EKS file: only remediation acts on EKS',
    (name) => {
      const b = bundle(name);
      expect(existsSync(join(b.dir, EKS_CHUNK))).toBe(false);
      expect(readFileSync(b.file, 'utf8')).not.toContain('k8s-aws-v1.');
    },
  );

  it('leaves the SDK clients as imports the runtime resolves', () => {
    expect(readFileSync(bundle('sweep').file, 'utf8')).toMatch(/from"@aws-sdk\/client-s3"/);
  });

  it('the Slack endpoint loads only DynamoDB at cold start (no S3, no Slack channel file)', () => {
    const b = bundle('slack');
    expect(externalImports(b.file)).toEqual(['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb']);
    // No Slack channel file: it answers Slack itself. The classifier's rules only if it ever classifies.
    expect(b.chunks.map((f) => basename(f))).toEqual(['classify.mjs']);
  });

  it.each([
    ['sweep', []],
    ['sentinel', []],
    ['remediate', ['@aws-sdk/client-ssm']],
  ] as const)(
    '%s loads S3 and DynamoDB at cold start, the alert channels on first use, and no YAML parser',
    (name, more) => {
      const b = bundle(name);
      expect(externalImports(b.file)).toEqual(
        ['@aws-sdk/client-dynamodb', '@aws-sdk/client-s3', '@aws-sdk/lib-dynamodb', ...more].sort(),
      );
      const code = readFileSync(b.file, 'utf8');
      for (const lazy of ['client-sns', 'client-eventbridge', 'client-ssm'])
        expect(code).toContain(`import("@aws-sdk/${lazy}")`);
      const sources = (JSON.parse(readFileSync(`${b.file}.map`, 'utf8')) as { sources: string[] }).sources;
      expect(sources.filter((s) => /node_modules\/yaml\//.test(s))).toEqual([]);
    },
  );

  it('the sweep bundle loads and sweeps an empty prefix against the emulator', async () => {
    const summary = await invoke(bundle('sweep'), { source: 'aws.events', 'detail-type': 'Scheduled Event' });
    expect(summary).toMatchObject({ runs: 0, transitions: [], errors: [], alertsFailed: 0 });
    expect(summary.byState).toMatchObject({ RUNNING: 0, FAILED: 0 });
  });

  it('the sentinel bundle records a run that wrote _complete as SUCCEEDED and alerts Slack through the parameter', async () => {
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'training-runs/run-bundle-1/_complete', Body: '{}' }),
    );
    const summary = await invoke(bundle('sentinel'), {
      source: 'aws.s3',
      'detail-type': 'Object Created',
      detail: { bucket: { name: bucket }, object: { key: 'training-runs/run-bundle-1/_complete' } },
    });
    expect(summary).toMatchObject({
      runs: 1,
      transitions: [{ runId: 'run-bundle-1', to: 'SUCCEEDED' }],
      errors: [],
    });
    const item = await ddb.send(
      new GetItemCommand({
        TableName: table,
        Key: { pk: { S: liveKey('run-bundle-1').pk }, sk: { S: 'RUN#run-bundle-1' } },
      }),
    );
    expect(item.Item?.state?.S).toBe('SUCCEEDED');
    // The bundled Slack client (CommonJS inside the ESM bundle) posted the alert.
    expect(summary.alertsSent).toBeGreaterThanOrEqual(1);
    expect(summary.alertsFailed).toBe(0);
    expect(JSON.stringify(slack.received)).toContain('run-bundle-1');
  });

  it.each(['sweep', 'sentinel', 'remediate'] as const)(
    '%s leaves the classifier rules out of its bundle, in classify.mjs beside it',
    (name) => {
      const b = bundle(name);
      const sources = (JSON.parse(readFileSync(`${b.file}.map`, 'utf8')) as { sources: string[] }).sources;
      expect(sources.filter((s) => /core\/classify\/(profiles|classify\.ts)/.test(s))).toEqual([]);
      const chunk = readFileSync(join(b.dir, CLASSIFY_CHUNK), 'utf8');
      // A signal's name: in the chunk, not in the handler.
      expect(chunk).toContain('"dataloader_timeout"');
      expect(readFileSync(b.file, 'utf8')).not.toContain('dataloader_timeout');
    },
  );

  it('the sentinel bundle loads the rules on the first _error and classifies it (FAILED, oom)', async () => {
    const key = 'training-runs/run-bundle-2/_error';
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
      }),
    );
    const summary = await invoke(bundle('sentinel'), {
      source: 'aws.s3',
      'detail-type': 'Object Created',
      detail: { bucket: { name: bucket }, object: { key } },
    });
    expect(summary).toMatchObject({ transitions: [{ runId: 'run-bundle-2', to: 'FAILED' }], errors: [] });
    const item = await ddb.send(
      new GetItemCommand({
        TableName: table,
        Key: { pk: { S: liveKey('run-bundle-2').pk }, sk: { S: 'RUN#run-bundle-2' } },
      }),
    );
    expect(item.Item?.errorType?.S).toBe('oom');
  });

  it('the remediate bundle classifies with the rules it loads from classify.mjs on its first failure', async () => {
    const result = await invoke(bundle('remediate'), {
      source: 'trainwatch',
      'detail-type': 'Training Run State Change',
      detail: { kind: 'transition', state: 'FAILED', runId: 'run-bundle-2', id: 'run-bundle-2:bundle' },
    });
    expect(result).toEqual({ batchItemFailures: [] });
    const logged = lastStdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.message === 'remediation');
    expect(logged).toMatchObject({ runId: 'run-bundle-2', errorType: 'oom', action: expect.any(String) });
  });

  it('the Slack endpoint bundle answers a signed /trainwatch status (secret from SSM) and a forged request 401', async () => {
    const env = {
      TRAINWATCH_SLACK_BOT_TOKEN_PARAM: SLACK_APP_CONFIG.slack.botTokenParameter,
      TRAINWATCH_SLACK_SIGNING_SECRET_PARAM: secretParam,
      TRAINWATCH_SLACK_CHANNEL: SLACK_APP_CONFIG.slack.channel,
    };
    const body = new URLSearchParams({
      command: '/trainwatch',
      text: 'status',
      user_id: 'U0123ABCD',
    }).toString();
    const ts = Math.floor(Date.now() / 1000);
    // As a function URL hands a form post over: base64, with the headers Slack signed.
    const event = (signature: string) => ({
      headers: { 'x-slack-request-timestamp': String(ts), 'x-slack-signature': signature },
      body: Buffer.from(body).toString('base64'),
      isBase64Encoded: true,
    });
    const ok = await invoke(bundle('slack'), event(signSlackRequest(signingSecret, ts, body)), env);
    expect(ok.statusCode).toBe(200);
    expect(JSON.parse(String(ok.body))).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringMatching(/^trainwatch: /),
    });
    const forged = await invoke(bundle('slack'), event(`v0=${'0'.repeat(64)}`), env);
    expect(forged).toMatchObject({ statusCode: 401 });
  });

  it('the remediate bundle loads and exports a handler', async () => {
    const script = `const m = await import(${JSON.stringify(pathToFileURL(bundle('remediate').file).href)}); process.stdout.write(typeof m.handler);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, AWS_REGION: region },
    });
    expect(stdout).toBe('function');
  });
});
