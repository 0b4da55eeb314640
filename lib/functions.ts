import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CLASSIFY_CHUNK } from '../lambdas/adapters/loaders/classifier.js';
import { EKS_CHUNK } from '../lambdas/adapters/platforms/eks/load.js';
import { acknowledge, checkovSkip } from './nag.js';

/** The repository root: entries, tsconfig and the lock file are found from here. */
export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The Lambda handlers, by function name. */
export const HANDLERS = {
  sweep: 'lambdas/handlers/sweep.ts',
  sentinel: 'lambdas/handlers/sentinel.ts',
  remediate: 'lambdas/handlers/remediate.ts',
  slack: 'lambdas/handlers/slack.ts',
} as const;

/** esbuild aliases of the bundles and their chunks. */
const ESBUILD_ALIASES = {
  // The stack passes policies and profiles as JSON: a JSON reader stands in for the YAML parser (-112 KB).
  '--alias:yaml': './lambdas/adapters/loaders/jsonAsYaml.ts',
  // The Slack client runs with no retries (the outbox retries): one attempt stands in for p-retry (-4.4 KB).
  '--alias:p-retry': './lambdas/adapters/channels/slack/slackOneAttempt.ts',
};

const BANNER =
  "import{createRequire as __twRequire}from'node:module';const require=__twRequire(import.meta.url);";

/**
 * Code a function needs only sometimes, as files of their own beside its `index.mjs`, built by the same
 * esbuild with the same options after the main bundle and imported on first use: the `define` turns the
 * loader's import of the source into an import of the file, and esbuild drops the source from the bundle
 * (lambdas/adapters/loaders/classifier.ts, slackLoader.ts). So a sweep of healthy runs with nothing to say loads
 * neither the classifier's rules (~80 KB of signals) nor any Slack code, and a webhook user never loads the
 * Slack Web API client.
 */
interface Chunk {
  readonly define: string;
  readonly entry: string;
  readonly file: string;
}

/** The classifier's rules: loaded on the first failure a function classifies. */
export const CLASSIFY: Chunk = {
  define: '__TRAINWATCH_CLASSIFY_CHUNK__',
  entry: 'lambdas/core/classify/index.ts',
  file: CLASSIFY_CHUNK,
};

/** The Slack channels: the webhook's (small), and the Slack app's (with the Web API client). */
export const SLACK_CHUNKS: readonly Chunk[] = [
  {
    define: '__TRAINWATCH_SLACK_WEBHOOK_CHUNK__',
    entry: 'lambdas/adapters/channels/slack/slackWebhookChannel.ts',
    file: 'slack-webhook.mjs',
  },
  {
    define: '__TRAINWATCH_SLACK_APP_CHUNK__',
    entry: 'lambdas/adapters/channels/slack/slackAppChannel.ts',
    file: 'slack-app.mjs',
  },
];

/** Runs on EKS (the Kubernetes calls and the EKS token): loaded by remediation on the first run on EKS. */
export const EKS: Chunk = {
  define: '__TRAINWATCH_EKS_CHUNK__',
  entry: 'lambdas/adapters/platforms/eks/index.ts',
  file: EKS_CHUNK,
};

/** The esbuild command that builds one chunk beside a function's `index.mjs`. */
function chunkCommand(inputDir: string, outputDir: string, c: Chunk): string {
  return [
    `"${inputDir}/node_modules/.bin/esbuild"`,
    `"${inputDir}/${c.entry}"`,
    '--bundle',
    '--platform=node',
    '--format=esm',
    '--target=node22',
    '--minify',
    '--sourcemap',
    '--sources-content=false',
    '--main-fields=module,main',
    "'--external:@aws-sdk/*'",
    ...Object.entries(ESBUILD_ALIASES).map(([k, v]) => `"${k}=${inputDir}/${v.replace(/^\.\//, '')}"`),
    `"--banner:js=${BANNER}"`,
    '--log-level=warning',
    `"--outfile=${outputDir}/${c.file}"`,
  ].join(' ');
}

/**
 * ESM output: the handlers may await at module scope (configuration, one Slack parameter read per cold
 * start), and Lambda (nodejs18.x and later) resolves ESM imports of the runtime's SDK through NODE_PATH.
 * Bundled CommonJS dependencies still call `require` for Node built-ins: the banner defines it. `chunks`:
 * the files built beside the bundle (above).
 */
function bundling(chunks: readonly Chunk[]): nodejs.BundlingOptions {
  return {
    format: nodejs.OutputFormat.ESM,
    target: 'node22',
    platform: 'node',
    minify: true,
    sourceMap: true,
    // Line mappings only: stack traces stay readable and the .map stays a fraction of its full size.
    sourcesContent: false,
    mainFields: ['module', 'main'],
    // The nodejs22.x runtime provides SDK v3; bundling it would add megabytes and cold-start time.
    externalModules: ['@aws-sdk/*'],
    esbuildArgs: ESBUILD_ALIASES,
    banner: BANNER,
    define: Object.fromEntries(chunks.map((c) => [c.define, JSON.stringify(`./${c.file}`)])),
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) =>
        chunks.map((c) => chunkCommand(inputDir, outputDir, c)),
    },
    forceDockerBundling: false,
  };
}

/** The Slack endpoint's bundling: no Slack channel (it answers Slack itself); the rules only if it ever classifies. */
export const BUNDLING = bundling([CLASSIFY]);
/** The bundling of a function that alerts (sweep, sentinel): the classifier and the Slack channels. */
export const ALERTING_BUNDLING = bundling([CLASSIFY, ...SLACK_CHUNKS]);
/** The remediation function's: those, and the EKS platform. */
export const REMEDIATION_BUNDLING = bundling([CLASSIFY, ...SLACK_CHUNKS, EKS]);

const BUNDLINGS: Record<keyof typeof HANDLERS, nodejs.BundlingOptions> = {
  sweep: ALERTING_BUNDLING,
  sentinel: ALERTING_BUNDLING,
  remediate: REMEDIATION_BUNDLING,
  slack: BUNDLING,
};

/** checkov findings on every function that this design accepts (docs/DEPLOY.md, "IaC scanner findings"). */
const CHECKOV_ACCEPTED: [string, string][] = [
  [
    'CKV_AWS_116',
    'Failed asynchronous invocations go to the dead-letter queue through an on-failure destination (EventInvokeConfig), which keeps the error and the request; a DeadLetterConfig would duplicate it.',
  ],
  [
    'CKV_AWS_117',
    'The functions call only AWS APIs and Slack over HTTPS; a VPC would add NAT cost and nothing to protect.',
  ],
  [
    'CKV_AWS_173',
    'The environment holds names and settings, no secrets (the Slack URL is an SSM SecureString); Lambda encrypts it at rest with its own key.',
  ],
];

/** Settings of one watchdog function. */
export interface WatchdogFunctionProps {
  readonly handler: keyof typeof HANDLERS;
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: logs.RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** Where failed asynchronous invocations go; absent for a function only ever called synchronously. */
  readonly deadLetterQueue?: sqs.IQueue;
  /** Lambda's own retries of a failed asynchronous invocation before it goes to the queue. */
  readonly retryAttempts: number;
  readonly maxEventAge?: Duration;
  /** Concurrent executions reserved for (and capping) this function; undefined: none. */
  readonly reservedConcurrency?: number;
  /** The customer-managed key of the log group; undefined: CloudWatch Logs' own encryption. */
  readonly logKey?: kms.IKey;
}

/**
 * An on-failure destination that grants only the SQS actions: the queue's key is already granted with
 * exact actions (grants.ts, EncryptAlerts), where `SqsDestination` would add `kms:GenerateDataKey*` and
 * `kms:ReEncrypt*` wildcards.
 */
class QueueDestination implements lambda.IDestination {
  constructor(private readonly queue: sqs.IQueue) {}

  bind(_scope: Construct, fn: lambda.IFunction): lambda.DestinationConfig {
    this.queue.grant(fn, 'sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl');
    return { destination: this.queue.queueArn };
  }
}

/**
 * A Node.js 22 arm64 function bundled with local esbuild, with its own role (nothing attached but what
 * the caller grants, plus writing to its own log group) and its own log group with retention.
 */
export class WatchdogFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: WatchdogFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
      encryptionKey: props.logKey,
    });
    if (!props.logKey)
      checkovSkip(
        this.logGroup,
        'CKV_AWS_158',
        'Log groups are encrypted by CloudWatch Logs; encryption.customerManagedKey opts in to a customer key.',
      );
    // No AWSLambdaBasicExecutionRole: it allows writing to every log group in the account.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `trainwatch ${props.handler} function`,
    });
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'WriteOwnLogs',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: join(PROJECT_ROOT, HANDLERS[props.handler]),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      description: props.description,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      bundling: BUNDLINGS[props.handler],
      awsSdkConnectionReuse: false,
      retryAttempts: props.retryAttempts,
      maxEventAge: props.maxEventAge,
      onFailure: props.deadLetterQueue ? new QueueDestination(props.deadLetterQueue) : undefined,
      reservedConcurrentExecutions: props.reservedConcurrency,
    });
    for (const [id, reason] of CHECKOV_ACCEPTED)
      checkovSkip(
        this.function,
        id,
        id === 'CKV_AWS_116' && !props.deadLetterQueue
          ? 'Invoked synchronously only (its function URL): there is no asynchronous invocation to keep; the caller (Slack) sees every error.'
          : reason,
      );
    if (props.reservedConcurrency === undefined)
      checkovSkip(this.function, 'CKV_AWS_115', 'reservedConcurrency: false was chosen for this deployment.');
    acknowledge(
      this.function,
      'AwsSolutions-L1',
      'Pinned to nodejs22.x, the runtime the bundles target (esbuild node22) and the tests cover; supported by Lambda until 2027-04-30.',
    );
  }
}
