import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { stringify } from 'yaml';

/**
 * The deployed mode: MiniStack (a local AWS that runs CloudFormation, the real Lambda bundles with the host's
 * `node`, EventBridge schedules and S3 → EventBridge, and evaluates IAM), started on a loopback port over TLS
 * with IAM enforced, and the README's `cdk bootstrap` / `cdk deploy` / `cdk destroy` run against it. Used by
 * test/deploy and `trainwatch local --deployed`.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Python of MiniStack's own virtual environment (scripts/ensure-ministack.mjs installs it). */
export const MINISTACK_PYTHON = join(ROOT, '.tools', 'ministack', 'bin', 'python');
const LAUNCHER = join(ROOT, 'scripts', 'ministack_server.py');
const CDK = join(ROOT, 'node_modules', '.bin', 'cdk');
export const ACCOUNT = '000000000000';
export const REGION = 'us-east-1';
/** MiniStack's administrator: the access key it was started with (every other key is a role session or a user). */
const ADMIN = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' };
/** This machine may preset these to a proxy's CA; they replace the trust store, so MiniStack's certificate would not be trusted. */
const CA_VARIABLES = ['NODE_EXTRA_CA_CERTS', 'AWS_CA_BUNDLE', 'REQUESTS_CA_BUNDLE', 'SSL_CERT_FILE'];

/** A running MiniStack, owned by this process. */
export interface MiniStack {
  readonly endpoint: string;
  /** Its self-signed certificate: the only CA its clients trust. */
  readonly caFile: string;
  /** Its TMPDIR (certificate, Lambda workers), the cloud assembly and the outputs: outside the project. */
  readonly dir: string;
  readonly pid: number;
  /** The environment of a command run against it with the administrator's credentials (cdk, aws, python). */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  /** SDK v3 client options against it (TLS with its certificate only), as the administrator unless `credentials`. */
  sdk(credentials?: Credentials): SdkOptions;
  /** The end of its log (Lambda output included). */
  log(): string;
  stop(): Promise<void>;
}

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface SdkOptions {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: Credentials;
  readonly forcePathStyle: true;
  readonly maxAttempts: number;
  readonly requestHandler: { httpsAgent: Agent };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function get(url: string, ca: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { ca, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** Starts MiniStack on a free loopback port (TLS, AUTH on); ready in a few seconds. */
export async function startMiniStack(timeoutMs = 60_000): Promise<MiniStack> {
  const dir = await mkdtemp(join(tmpdir(), 'trainwatch-deployed-'));
  // The runtime's SDK (`@aws-sdk/*`, external to the bundles as on Lambda) is resolved from an ancestor of
  // the worker's folder; the folder itself must not lie under this project's `"type": "module"` package.json.
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const port = await freePort();
  const logFile = join(dir, 'ministack.log');
  const logFd = openSync(logFile, 'w');
  const env: NodeJS.ProcessEnv = { ...process.env, ...ADMIN };
  for (const v of [...CA_VARIABLES, 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_ENDPOINT_URL']) delete env[v];
  Object.assign(env, {
    BIND_HOST: '127.0.0.1', // its default is every interface
    GATEWAY_PORT: String(port),
    USE_SSL: '1', // the bucket policy denies every request not made over TLS
    AUTH: 'true', // IAM policies evaluated
    TMPDIR: dir,
    MINISTACK_REGION: REGION,
    IOT_MTLS_ENABLED: '0',
    SFTP_ENABLED: '0',
  });
  const child: ChildProcess = spawn(MINISTACK_PYTHON, [LAUNCHER], { env, stdio: ['pipe', logFd, logFd] });
  closeSync(logFd);
  const endpoint = `https://127.0.0.1:${port}`;
  const caFile = join(dir, 'ministack-tls', 'server.crt');
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8').slice(-12_000);
    } catch {
      return '';
    }
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`MiniStack exited with ${child.exitCode}\n${log()}`);
    let ca = '';
    try {
      ca = readFileSync(caFile, 'utf8');
    } catch {}
    if (ca && (await get(`${endpoint}/_ministack/ready`, ca)) === 200) break;
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`MiniStack did not answer in ${timeoutMs} ms\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const ms = miniStackAt({ endpoint, caFile, dir, pid: child.pid! }, log);
  return {
    ...ms,
    stop: async () => {
      await ms.stop();
      await stopByPid(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Where a MiniStack started elsewhere (the test's global setup) answers. */
export interface MiniStackAddress {
  readonly endpoint: string;
  readonly caFile: string;
  readonly dir: string;
  readonly pid: number;
}

/** The {@link MiniStack} at `address`; its `stop` only closes this process's connections. */
export function miniStackAt(address: MiniStackAddress, log?: () => string): MiniStack {
  const { endpoint, caFile } = address;
  const httpsAgent = new Agent({ ca: readFileSync(caFile, 'utf8'), keepAlive: true });
  const logFile = join(address.dir, 'ministack.log');
  return {
    ...address,
    env: (extra = {}) => {
      const e: NodeJS.ProcessEnv = { ...process.env };
      for (const v of [...CA_VARIABLES, 'AWS_SESSION_TOKEN', 'AWS_PROFILE']) delete e[v];
      return {
        ...e,
        ...ADMIN,
        AWS_ENDPOINT_URL: endpoint,
        AWS_CA_BUNDLE: caFile,
        AWS_REGION: REGION,
        AWS_DEFAULT_REGION: REGION,
        ...extra,
      };
    },
    sdk: (credentials) => ({
      endpoint,
      region: REGION,
      credentials: credentials ?? {
        accessKeyId: ADMIN.AWS_ACCESS_KEY_ID,
        secretAccessKey: ADMIN.AWS_SECRET_ACCESS_KEY,
      },
      forcePathStyle: true,
      maxAttempts: 1,
      requestHandler: { httpsAgent },
    }),
    log:
      log ??
      (() => {
        try {
          return readFileSync(logFile, 'utf8').slice(-12_000);
        } catch {
          return '';
        }
      }),
    stop: async () => {
      httpsAgent.destroy();
    },
  };
}

/** SIGTERM to its pid (it stops its Lambda workers), SIGKILL if it is still there 10 s later. */
function stopByPid(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Runs one command against MiniStack; rejects with its output when it fails. */
export async function command(
  ms: MiniStack,
  file: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<string> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, {
      cwd: opts.cwd ?? ms.dir,
      env: ms.env(opts.env),
      timeout: opts.timeoutMs ?? 300_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return `${stdout}${stderr}`;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${file} ${args.join(' ')} failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`,
    );
  }
}

/** The `aws` CLI against MiniStack, JSON out (as the README's steps run it). */
export async function aws(ms: MiniStack, args: string[], env?: Record<string, string>): Promise<unknown> {
  // --endpoint-url: the AWS CLI v1 ignores AWS_ENDPOINT_URL for some services (SQS).
  const out = await command(
    ms,
    'python3',
    ['-m', 'awscli', ...args, '--endpoint-url', ms.endpoint, '--output', 'json'],
    {
      env,
    },
  );
  return out.trim() ? JSON.parse(out) : undefined;
}

/** Loopback stand-ins for the outside hosts the functions call (no outside host is reachable here). */
export interface OutsideHosts {
  /** The Slack Web API (`TRAINWATCH_SLACK_API_URL`), ending in `/`. */
  readonly slackApiUrl: string;
  /** The PagerDuty Events API v2 (`TRAINWATCH_PAGERDUTY_URL`). */
  readonly pagerDutyUrl: string;
}

/**
 * The synthesized template with what MiniStack cannot host taken out, and nothing else changed but where
 * the functions find Slack and PagerDuty:
 * - the two `AWS::SSM::Document`s (its CloudFormation rejects the type and its SSM has no CreateDocument);
 *   their generated names, in remediation's environment and its `ssm:SendCommand` resources, become fixed
 *   names that exist nowhere;
 * - slack.com and events.pagerduty.com: each function's environment gains the two settings the runtime
 *   already reads for tests and the local mode (lambdas/settings/registry.ts), pointing at loopback servers.
 */
export function emulatorTemplate(
  template: { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> },
  hosts?: OutsideHosts,
): { template: unknown; removed: Record<string, string> } {
  const removed: Record<string, string> = {};
  for (const [id, r] of Object.entries(template.Resources))
    if (r.Type === 'AWS::SSM::Document') removed[id] = `trainwatch-emulator-${id.toLowerCase()}`;
  const resources = Object.fromEntries(Object.entries(template.Resources).filter(([id]) => !(id in removed)));
  const replace = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(replace);
    if (x && typeof x === 'object') {
      const o = x as Record<string, unknown>;
      const keys = Object.keys(o);
      if (keys.length === 1 && keys[0] === 'Ref' && typeof o.Ref === 'string' && o.Ref in removed)
        return removed[o.Ref];
      return Object.fromEntries(keys.map((k) => [k, replace(o[k])]));
    }
    return x;
  };
  const out = replace({ ...template, Resources: resources }) as typeof template;
  if (hosts)
    for (const r of Object.values(out.Resources)) {
      const vars = (r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables;
      if (r.Type !== 'AWS::Lambda::Function' || !vars) continue;
      vars.TRAINWATCH_SLACK_API_URL = hosts.slackApiUrl;
      vars.TRAINWATCH_PAGERDUTY_URL = hosts.pagerDutyUrl;
    }
  return { template: out, removed };
}

/** A deployed stack: its outputs and how long each README step took. */
export interface Deployment {
  readonly stackName: string;
  readonly outputs: Record<string, string>;
  readonly removed: Record<string, string>;
  readonly seconds: { bootstrap: number; synth: number; deploy: number };
  readonly configFile: string;
}

/**
 * The README's steps 1–3 against MiniStack: the configuration file, `cdk bootstrap` (from outside the project:
 * from inside, the CLI re-synthesizes the app with bundling skipped), `cdk synth` of the real app (bin/app.ts,
 * the real bundles) into a folder outside the project, the emulator's template variant, `cdk deploy` of it.
 */
export async function deploy(
  ms: MiniStack,
  config: Record<string, unknown>,
  opts: { hosts?: OutsideHosts; log?: (line: string) => void } = {},
): Promise<Deployment> {
  const log = opts.log ?? (() => {});
  const configFile = join(ms.dir, 'trainwatch.yaml');
  await writeFile(configFile, stringify(config));
  const stackName = String(config.stackName ?? 'Trainwatch');
  const timed = async (label: string, f: () => Promise<unknown>) => {
    const t = Date.now();
    log(`$ ${label}`);
    await f();
    return (Date.now() - t) / 1000;
  };
  const bootstrap = await timed(`npx cdk bootstrap aws://${ACCOUNT}/${REGION}`, () =>
    command(ms, CDK, ['bootstrap', `aws://${ACCOUNT}/${REGION}`]),
  );
  const assembly = join(ms.dir, 'cdk.out');
  const synth = await timed(`npx cdk synth -c trainwatch:config=${configFile}`, () =>
    command(ms, CDK, ['synth', '--quiet', '-c', `trainwatch:config=${configFile}`, '-o', assembly], {
      cwd: ROOT,
    }),
  );
  const templateFile = join(assembly, `${stackName}.template.json`);
  const variant = emulatorTemplate(JSON.parse(await readFile(templateFile, 'utf8')), opts.hosts);
  await writeFile(templateFile, JSON.stringify(variant.template));
  const outputsFile = join(ms.dir, 'outputs.json');
  const deploySeconds = await timed('npx cdk deploy', () =>
    command(ms, CDK, [
      'deploy',
      stackName,
      '--app',
      assembly,
      '--require-approval',
      'never',
      '--outputs-file',
      outputsFile,
    ]),
  );
  const outputs = JSON.parse(await readFile(outputsFile, 'utf8'))[stackName] as Record<string, string>;
  return {
    stackName,
    outputs,
    removed: variant.removed,
    seconds: { bootstrap, synth, deploy: deploySeconds },
    configFile,
  };
}

/** `cdk destroy` of the deployed assembly. */
export async function destroy(ms: MiniStack, d: Deployment): Promise<void> {
  await command(ms, CDK, ['destroy', d.stackName, '--app', join(ms.dir, 'cdk.out'), '--force']);
}

/** A role that training instances would use, holding only `policyArn`; its session's credentials. */
export async function assumeRoleWith(
  ms: MiniStack,
  roleName: string,
  policyArn: string,
): Promise<Credentials> {
  const trust = JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` }, Action: 'sts:AssumeRole' },
    ],
  });
  await aws(ms, ['iam', 'create-role', '--role-name', roleName, '--assume-role-policy-document', trust]);
  await aws(ms, ['iam', 'attach-role-policy', '--role-name', roleName, '--policy-arn', policyArn]);
  return assumeRole(ms, `arn:aws:iam::${ACCOUNT}:role/${roleName}`);
}

/** Credentials of a session of `roleArn`, assumed with the administrator's. */
export async function assumeRole(ms: MiniStack, roleArn: string): Promise<Credentials> {
  const r = (await aws(ms, [
    'sts',
    'assume-role',
    '--role-arn',
    roleArn,
    '--role-session-name',
    'trainwatch-check',
  ])) as {
    Credentials: { AccessKeyId: string; SecretAccessKey: string; SessionToken: string };
  };
  return {
    accessKeyId: r.Credentials.AccessKeyId,
    secretAccessKey: r.Credentials.SecretAccessKey,
    sessionToken: r.Credentials.SessionToken,
  };
}

/** The environment variables that carry `c` (for the Python client and the AWS CLI). */
export function credentialsEnv(c: Credentials): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: c.accessKeyId,
    AWS_SECRET_ACCESS_KEY: c.secretAccessKey,
    ...(c.sessionToken ? { AWS_SESSION_TOKEN: c.sessionToken } : {}),
  };
}

/** The parameters the README has a user put after deploying (steps 5 and docs/ONCALL.md "Slack app"), as SecureStrings. */
export async function putParameters(ms: MiniStack, params: Record<string, string>): Promise<void> {
  for (const [name, value] of Object.entries(params))
    await aws(ms, [
      'ssm',
      'put-parameter',
      '--name',
      name,
      '--type',
      'SecureString',
      '--value',
      value,
      '--overwrite',
    ]);
}

/** The parameters the deployed configuration names, with values of the right shapes (none reach a real service). */
export const DEPLOYED_PARAMETERS = {
  '/trainwatch/slack-bot-token': 'xoxb-000000000000-000000000000-emulatoremulatoremulator',
  '/trainwatch/slack-signing-secret': 'emulatorsigningsecret0123456789ab',
  '/trainwatch/pagerduty-routing-key': 'emulatorroutingkey0123456789abcd',
} as const;

/**
 * A realistic configuration (docs/CONFIGURATION.md "A full example"): the Slack app, PagerDuty, a restart policy, a created
 * bucket kept on destroy. `retention.endedAfter` is short so that a finished run ends within a sweep or two.
 */
export function deployedConfig(stackName = 'Trainwatch'): Record<string, unknown> {
  return {
    stackName,
    account: ACCOUNT,
    region: REGION,
    prefix: 'training-runs',
    schedule: '1m',
    alerts: { emails: [], slackWebhookParameter: '' },
    slack: {
      botTokenParameter: '/trainwatch/slack-bot-token',
      signingSecretParameter: '/trainwatch/slack-signing-secret',
      channel: 'C0123ABCD',
    },
    pagerduty: { routingKeyParameter: '/trainwatch/pagerduty-routing-key' },
    profile: 'production',
    remediation: {
      enabled: true,
      restartPolicy: { extends: 'transient', max_restarts: 2 },
      restartCommands: { '*': { command: '/opt/train/resume.sh', user: 'ubuntu' } },
      managedTag: 'trainwatch:managed=true',
    },
    removalPolicy: 'retain',
    retention: { logsDays: 30, runsDays: 90, historyDays: 90, endedAfter: '1s' },
  };
}

/** A deployment set up as the README's steps 4–6 leave it: parameters filled, an alert queue, a writer role. */
export interface Trial {
  readonly deployment: Deployment;
  /** An SQS queue subscribed to the alert topic (as `aws sns subscribe` adds an endpoint). */
  readonly alertQueueUrl: string;
  /** A session of a role holding only the writer policy the stack outputs (a training instance's role). */
  readonly writer: Credentials;
}

/** Deploys (README steps 1–3) and does steps 4–6: what the deployment test and `trainwatch local --deployed` run. */
export async function deployTrial(
  ms: MiniStack,
  opts: { hosts?: OutsideHosts; log?: (line: string) => void; config?: Record<string, unknown> } = {},
): Promise<Trial> {
  const d = await deploy(ms, opts.config ?? deployedConfig(), opts);
  // Step 5 and "Slack app": the parameters the stack reads, never creates.
  await putParameters(ms, DEPLOYED_PARAMETERS);
  const topicArn = d.outputs.AlertTopicArn!;
  const queue = (await aws(ms, ['sqs', 'create-queue', '--queue-name', 'trainwatch-alerts-check'])) as {
    QueueUrl: string;
  };
  const queueArn = `arn:aws:sqs:${REGION}:${ACCOUNT}:trainwatch-alerts-check`;
  const policy = {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Service: 'sns.amazonaws.com' },
        Action: 'sqs:SendMessage',
        Resource: queueArn,
        Condition: { ArnEquals: { 'aws:SourceArn': topicArn } },
      },
    ],
  };
  await aws(ms, [
    'sqs',
    'set-queue-attributes',
    '--queue-url',
    queue.QueueUrl,
    '--attributes',
    JSON.stringify({ Policy: JSON.stringify(policy) }),
  ]);
  // Step 4: one more subscriber.
  await aws(ms, [
    'sns',
    'subscribe',
    '--topic-arn',
    topicArn,
    '--protocol',
    'sqs',
    '--notification-endpoint',
    queueArn,
  ]);
  // Step 6: the training instance's role holds the writer policy.
  const writer = await assumeRoleWith(ms, 'training-instance', d.outputs.WriterPolicyArn!);
  return { deployment: d, alertQueueUrl: queue.QueueUrl, writer };
}
