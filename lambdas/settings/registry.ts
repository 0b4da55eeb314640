import { formatDuration } from '../core/base/duration.js';
import { FIXED } from '../core/detection/thresholds.js';
import { parsePercent } from '../core/health/settings.js';
import { days, duration, int, keyPrefix, optionalDuration, phases, word } from './define.js';
import { eksClusters, gangRestart } from './eks.js';
import { profile, restartCommands, restartPolicy, tag } from './remediation.js';
import { slackChannel, slackUsers } from './slack.js';
import { required, text } from './text.js';

/**
 * Every runtime setting a user chooses, once: nested as the construct's props are (the TSDoc here is the
 * props' TSDoc), with the environment variable the functions read, the default and one line of doc. The
 * config file, the props, their defaults and validation, the functions' environment, the runtime
 * loader and the table in docs/CONFIGURATION.md all derive from it. Settings under `remediation` reach the
 * remediation function only; the others reach every function. How to add one: docs/ARCHITECTURE.md.
 */
export const SETTINGS = {
  /**
   * Key prefix of the runs: `s3://{bucket}/{prefix}/{run_id}/`.
   * @default 'training-runs'
   */
  prefix: keyPrefix({
    env: 'TRAINWATCH_PREFIX',
    default: 'training-runs',
    allowEmpty: true,
    doc: 'runs live under `{prefix}/{run_id}/`',
  }),
  /**
   * Name of the SSM parameter (String or SecureString) holding the Slack incoming-webhook URL; the stack
   * reads it, never creates it. Empty string: no Slack.
   * @default '/trainwatch/slack-webhook-url'
   */
  slackWebhookParameterName: text({
    kind: 'ssmParameter',
    env: 'TRAINWATCH_SLACK_WEBHOOK_PARAM',
    file: 'alerts.slackWebhookParameter',
    runtime: 'slackWebhookParam',
    stackDefault: '/trainwatch/slack-webhook-url',
    pattern: /^[A-Za-z0-9_.\-/]+$/,
    problem: 'is not an SSM parameter name',
    doc: 'Parameter Store name of the webhook URL (SecureString; Lambda)',
  }),
  /**
   * Name of the SSM SecureString holding the PagerDuty Events API v2 routing key; the stack reads it
   * (ssm:GetParameter on this parameter only), never creates it. Unset: no PagerDuty channel.
   * @default - no PagerDuty
   */
  pagerDutyRoutingKeyParameterName: text({
    kind: 'ssmParameter',
    env: 'TRAINWATCH_PAGERDUTY_ROUTING_KEY_PARAM',
    file: 'pagerduty.routingKeyParameter',
    runtime: 'pagerDutyRoutingKeyParam',
    pattern: /^[A-Za-z0-9_.\-/]+$/,
    problem: 'is not an SSM parameter name',
    unset: '— (no PagerDuty)',
    doc: 'Parameter Store name of the PagerDuty routing key (SecureString; Lambda)',
  }),
  /**
   * Same-kind unhealthy transitions in one sweep that make one grouped Slack/SNS alert; 0: never group.
   * @default 3
   */
  groupMin: int({
    env: 'TRAINWATCH_GROUP_MIN',
    default: 3,
    min: 0,
    max: 1000,
    doc: 'this many same-kind unhealthy transitions in one sweep → one grouped Slack/SNS alert (0: never)',
  }),
  /** @default - see {@link SlackAppProps} */
  slack: {
    /**
     * Name of the SSM SecureString holding the Slack app's bot token (`xoxb-…`); the stack reads it, never
     * creates it. Set (with `channel`): one thread per run attempt, with buttons. Unset: no Slack app.
     * @default - no Slack app (the incoming webhook, if set, works as before)
     */
    botTokenParameterName: text({
      kind: 'ssmParameter',
      env: 'TRAINWATCH_SLACK_BOT_TOKEN_PARAM',
      file: 'slack.botTokenParameter',
      runtime: 'slack.botTokenParam',
      pattern: /^[A-Za-z0-9_.\-/]+$/,
      problem: 'is not an SSM parameter name',
      unset: '— (no Slack app)',
      doc: 'Parameter Store name of the Slack app bot token (SecureString; Lambda)',
    }),
    /**
     * Name of the SSM SecureString holding the Slack app's signing secret: set, the stack deploys the
     * endpoint (a function URL) that buttons and `/trainwatch` call. Unset: no endpoint.
     * @default - no endpoint (no buttons)
     */
    signingSecretParameterName: text({
      kind: 'ssmParameter',
      env: 'TRAINWATCH_SLACK_SIGNING_SECRET_PARAM',
      file: 'slack.signingSecretParameter',
      runtime: 'slack.signingSecretParam',
      pattern: /^[A-Za-z0-9_.\-/]+$/,
      problem: 'is not an SSM parameter name',
      unset: '— (no endpoint)',
      doc: 'Parameter Store name of the Slack app signing secret (SecureString; endpoint)',
    }),
    /**
     * The channel id (`C0123ABCD`) the Slack app posts to; the app must be a member.
     * @default - none (required with `botTokenParameterName`)
     */
    channel: slackChannel({
      env: 'TRAINWATCH_SLACK_CHANNEL',
      unset: '—',
      doc: 'channel id the Slack app posts to',
    }),
    /**
     * Who may press Acknowledge: Slack user ids (`U…`), user-group ids (`S…`), or `*` for anyone.
     * @default ['*']
     */
    ackBy: slackUsers({ env: 'TRAINWATCH_SLACK_ACK_BY', default: ['*'], doc: 'who may press Acknowledge' }),
    /**
     * Who may press Silence (1h, 4h, until resolved): user ids, user-group ids, or `*`.
     * @default ['*']
     */
    silenceBy: slackUsers({
      env: 'TRAINWATCH_SLACK_SILENCE_BY',
      default: ['*'],
      doc: 'who may press Silence',
    }),
    /**
     * Who may press Restart now: user ids, user-group ids, or `*`. Empty: the button is never shown.
     * @default [] (nobody: off)
     */
    restartBy: slackUsers({
      env: 'TRAINWATCH_SLACK_RESTART_BY',
      default: [],
      doc: 'who may press Restart now (`none`: off)',
    }),
  },
  /** @default - see {@link ThresholdProps} */
  thresholds: {
    /**
     * A heartbeat older than this is stale (one stale: WARNING, both: TIMED_OUT). Unset: learned from each run,
     * 2.5 of its writers' intervals (at least 2 minutes), and 10 minutes until the run has a history.
     * @default - learned from the run (10 minutes until it has a history)
     */
    staleAfter: optionalDuration({
      env: 'TRAINWATCH_STALE_AFTER',
      runtime: 'thresholds.staleAfterMs',
      unset: `learned from the run (${formatDuration(FIXED.staleAfterMs)} until it has a history)`,
      doc: 'heartbeat staleness (durations: `90s`, `10m`, `2h`, `1d`); set: fixed for every run',
    }),
    /**
     * `step` not advancing for this long while heartbeats are fresh: STALLED. Unset: learned from each run, 3 of
     * its usual longest gaps between steps (at least 2 minutes) when its stacks show a hang, and 30 minutes
     * otherwise and until the run has a history (docs/DETECTION.md).
     * @default - learned from the run (30 minutes until it has a history)
     */
    stallAfter: optionalDuration({
      env: 'TRAINWATCH_STALL_AFTER',
      runtime: 'thresholds.stallAfterMs',
      unset: `learned from the run (${formatDuration(FIXED.stallAfterMs)} until it has a history)`,
      doc: '`step` not advancing this long → `STALLED`; set: fixed for every run',
    }),
    /**
     * How long a new run prefix may go without any heartbeat before it is TIMED_OUT.
     * @default Duration.minutes(15)
     */
    startupGrace: duration({
      env: 'TRAINWATCH_STARTUP_GRACE',
      runtime: 'thresholds.startupGraceMs',
      default: '15m',
      doc: 'time a new run (or a restarted attempt) may take to send its first heartbeat',
    }),
    /**
     * Longer stale thresholds while the run reports a phase (e.g. a long checkpoint write).
     * @default { setup: 30 min, checkpointing: 30 min, evaluation: 30 min, validation: 30 min }
     */
    phaseStaleAfter: phases({
      env: 'TRAINWATCH_PHASE_STALE_AFTER',
      runtime: 'thresholds.phaseStaleAfterMs',
      default: { setup: '30m', checkpointing: '30m', evaluation: '30m', validation: '30m' },
      doc: 'longer stale thresholds per `phase`',
    }),
    /**
     * Re-alert this often while a run stays unhealthy.
     * @default - never: one alert per transition
     */
    remindEvery: optionalDuration({
      env: 'TRAINWATCH_REMIND_EVERY',
      runtime: 'remindEveryMs',
      unset: '— (never)',
      doc: 're-alert while a run stays unhealthy',
    }),
  },
  /** @default - see {@link HealthProps} */
  health: {
    /**
     * A run's rate this far below its own baseline for two telemetry periods: WARNING (throughput drop).
     * @default '30%'
     */
    throughputDrop: word(
      {
        env: 'TRAINWATCH_THROUGHPUT_DROP',
        default: '30%',
        want: 'a percentage between 0 and 100 (e.g. 30%)',
        doc: "rate this far below the run's own baseline for two telemetry periods → `WARNING`",
      },
      parsePercent,
    ),
    /**
     * How often node (and progress) bodies are read for telemetry when they changed; a rule needs two periods.
     * @default Duration.minutes(5)
     */
    telemetryEvery: duration({
      env: 'TRAINWATCH_TELEMETRY_EVERY',
      runtime: 'health.telemetryEveryMs',
      default: '5m',
      doc: 'telemetry period: node bodies read at most this often',
    }),
    /**
     * GPUs at ≤ 5 % utilisation this long while the run is RUNNING: WARNING (idle GPUs).
     * @default Duration.minutes(15)
     */
    idleGpuAfter: duration({
      env: 'TRAINWATCH_IDLE_GPU_AFTER',
      runtime: 'health.idleGpuAfterMs',
      default: '15m',
      doc: 'GPUs idle this long on a RUNNING run → `WARNING`',
    }),
    /**
     * The first minutes of every attempt (compiling, loading data) are never judged.
     * @default Duration.minutes(10)
     */
    warmup: duration({
      env: 'TRAINWATCH_HEALTH_WARMUP',
      runtime: 'health.warmupMs',
      default: '10m',
      doc: 'warm-up of each attempt, never judged',
    }),
    /**
     * The span of the rolling median that is a run's own baseline rate.
     * @default Duration.hours(1)
     */
    baselineWindow: duration({
      env: 'TRAINWATCH_BASELINE_WINDOW',
      runtime: 'health.baselineWindowMs',
      default: '1h',
      doc: "span of the rolling median that is a run's baseline rate",
    }),
    /**
     * A node whose step time is at least this many times the median of the others: a straggler.
     * @default '1.3'
     */
    stragglerRatio: word(
      {
        env: 'TRAINWATCH_STRAGGLER_RATIO',
        default: '1.3',
        want: 'a ratio above 1 and at most 10 (e.g. 1.3)',
        doc: "step time this many times the others' median → straggler",
      },
      (raw) => (/^\d+(\.\d+)?$/.test(raw) && Number(raw) > 1 && Number(raw) <= 10 ? Number(raw) : undefined),
    ),
    /**
     * Phases never judged nor used for the baseline (metadata.json `phase`), comma-separated.
     * @default 'setup,checkpointing,validation,evaluation,eval'
     */
    excludedPhases: word(
      {
        env: 'TRAINWATCH_HEALTH_EXCLUDED_PHASES',
        default: 'setup,checkpointing,validation,evaluation,eval',
        want: 'phase names separated by commas',
        doc: 'phases the health rules ignore',
      },
      (raw) => {
        const phases = raw
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean);
        return phases.every((p) => /^[A-Za-z0-9_-]+$/.test(p)) ? phases : undefined;
      },
    ),
    /**
     * `false` turns the healthy-run rules (throughput, stragglers, idle GPUs) off.
     * @default 'true'
     */
    checks: word(
      {
        env: 'TRAINWATCH_HEALTH_CHECKS',
        runtime: 'health.enabled',
        default: 'true',
        want: 'true or false',
        doc: '`false`: no throughput, straggler or idle-GPU judgement',
      },
      (raw) => (/^(true|on)$/i.test(raw) ? true : /^(false|off)$/i.test(raw) ? false : undefined),
    ),
  },
  /**
   * How long a run's files stay in S3 (under the run prefix while it is live, under `endedPrefix` once it
   * ended) and an ended run's item in DynamoDB (TTL). 0: kept for good.
   * @default Duration.days(90)
   */
  runRetention: days({
    env: 'TRAINWATCH_RUN_RETENTION_DAYS',
    file: 'retention.runsDays',
    runtime: 'runRetentionDays',
    default: 90,
    min: 0,
    max: 3650,
    doc: "how long a run's files (and an ended run's item) are kept; 0: for good",
  }),
  /**
   * A run that has been `SUCCEEDED`, `FAILED` or `TIMED_OUT` this long, with nothing left to send, ends:
   * its files move under `endedPrefix` and no sweep reads it again (a new attempt brings it back).
   * @default Duration.hours(1)
   */
  endedAfter: duration({
    env: 'TRAINWATCH_ENDED_AFTER',
    file: 'retention.endedAfter',
    runtime: 'endedAfterMs',
    default: '1h',
    doc: 'how long a finished run stays swept before it ends',
  }),
  /**
   * Key prefix where ended runs' files go: `s3://{bucket}/{endedPrefix}/{run_id}/{ended at}/`. Outside the
   * run prefix, so the sweep never lists them.
   * @default 'trainwatch-ended'
   */
  endedPrefix: keyPrefix({
    env: 'TRAINWATCH_ENDED_PREFIX',
    file: 'retention.endedPrefix',
    default: 'trainwatch-ended',
    doc: "ended runs' files: `{endedPrefix}/{run_id}/{ended at}/`",
  }),
  /**
   * How long transition history stays in DynamoDB (TTL).
   * @default Duration.days(90)
   */
  historyTtl: days({
    env: 'TRAINWATCH_HISTORY_TTL_DAYS',
    file: 'retention.historyDays',
    runtime: 'historyTtlDays',
    default: 90,
    min: 1,
    max: 3650,
    doc: 'how long transition history is kept',
  }),
  /**
   * How many runs one sweep evaluates in parallel.
   * @default 16
   */
  concurrency: int({
    env: 'TRAINWATCH_CONCURRENCY',
    default: 16,
    min: 1,
    max: 256,
    doc: 'runs checked in parallel by one sweep',
  }),
  /**
   * Default classification profile for runs that set none: a built-in name (`basic`, `nccl`, `stall`,
   * `production`) or a custom profile object (`{ name, extends, disable, signals }`).
   * @default 'production'
   */
  profile: profile({
    env: 'TRAINWATCH_PROFILE',
    runtime: 'remediation.profile',
    default: 'production',
    doc: 'default classification profile: a built-in name, or JSON/YAML',
  }),
  /** @default - see {@link RemediationProps} */
  remediation: {
    /**
     * Restart policy: a preset (`none`, `transient`, `aggressive`, `conservative`) or a policy object
     * (see the README, "Deploy to your AWS account").
     * @default 'none'
     */
    restartPolicy: restartPolicy({
      env: 'TRAINWATCH_RESTART_POLICY',
      runtime: 'remediation.policy',
      default: 'none',
      doc: '`none`, `transient`, `aggressive`, `conservative`, or JSON/YAML',
    }),
    /**
     * The command that resumes a job from its latest checkpoint, by `job_name`; key `*` is the fallback.
     * A string, or `{ command, process_pattern?, user? }`. A program and its arguments, no shell syntax.
     * @default {} (no restart command: restarts are skipped with a reason)
     */
    restartCommands: restartCommands({
      env: 'TRAINWATCH_RESTART_COMMANDS',
      runtime: 'remediation.commands',
      doc: 'JSON: `job_name` (or `*`) → command, or `{command, process_pattern, user}`',
    }),
    /**
     * Only instances with this tag may receive `ssm:SendCommand` from the stack.
     * @default { key: 'trainwatch:managed', value: 'true' }
     */
    managedTag: tag({
      env: 'TRAINWATCH_MANAGED_TAG',
      default: 'trainwatch:managed=true',
      doc: 'instances remediation may target',
    }),
    /**
     * Key prefix in the heartbeat bucket where SSM writes full command output.
     * @default 'trainwatch-ssm-output'
     */
    ssmOutputPrefix: keyPrefix({
      env: 'TRAINWATCH_SSM_OUTPUT_PREFIX',
      default: 'trainwatch-ssm-output',
      doc: 'where full SSM command output goes in the bucket',
    }),
    /** Runs on EKS (docs/EKS.md): the clusters remediation may act in, and how it restarts a gang. */
    eks: {
      /**
       * The EKS clusters remediation may act in: `{ name, endpoint, certificateAuthority, region?, namespaces,
       * group? }` each. The stack gives the remediation role an access entry on each, in the Kubernetes `group`
       * (default `trainwatch:remediation`, what docs/eks-rbac.yaml binds), and stores each CA in an SSM parameter
       * of its own, which the function reads (Lambda's 4 KB environment would hold one CA).
       * @default [] (no EKS: a run on EKS is reported, never restarted)
       */
      clusters: eksClusters({
        env: 'TRAINWATCH_EKS_CLUSTERS',
        unset: '— (no EKS)',
        doc: 'JSON: `[{name, endpoint, certificateAuthority or …Param, namespaces, …}]` (docs/EKS.md)',
      }),
      /**
       * How a PyTorchJob's gang restarts: `pods` deletes its pods (its operator starts them again), `suspend`
       * suspends the job, waits for its pods to go, and resumes it.
       * @default 'pods'
       */
      gangRestart: word(
        {
          env: 'TRAINWATCH_EKS_GANG_RESTART',
          default: 'pods',
          want: '"pods" or "suspend"',
          doc: "how a PyTorchJob's gang restarts on EKS: `pods` (delete them) or `suspend` (suspend, resume)",
        },
        gangRestart,
      ),
    },
  },
} as const;

const SNS_ARN = /^arn:aws[\w-]*:sns:[\w-]+:\d{12}:[\w-]+$/;

/** What the stack sets from the resources it creates (and local mode from the emulator's). */
export const WIRING = {
  bucket: required({ env: 'TRAINWATCH_BUCKET', doc: 'the heartbeat bucket' }),
  table: required({
    env: 'TRAINWATCH_TABLE',
    doc: 'the state table (keys `pk`, `sk`; TTL attribute `expiresAt`)',
  }),
  topicArn: text({
    env: 'TRAINWATCH_TOPIC_ARN',
    pattern: SNS_ARN,
    problem: 'is not an SNS topic ARN',
    doc: 'SNS topic for alerts',
  }),
  eventBus: text({
    env: 'TRAINWATCH_EVENT_BUS',
    unset: 'the default bus',
    doc: 'EventBridge bus for state-change events',
  }),
  slackWebhookUrl: text({
    env: 'TRAINWATCH_SLACK_WEBHOOK_URL',
    pattern: /^https?:\/\/\S+$/,
    problem: 'is not an http(s) URL',
    secret: true,
    doc: 'a plain webhook URL (local mode, tests)',
  }),
  pagerDutyRoutingKey: text({
    env: 'TRAINWATCH_PAGERDUTY_ROUTING_KEY',
    pattern: /^[A-Za-z0-9_-]{8,128}$/,
    problem: 'is not a PagerDuty routing key',
    secret: true,
    doc: 'a plain PagerDuty routing key (local mode, tests)',
  }),
  slack: {
    botToken: text({
      env: 'TRAINWATCH_SLACK_BOT_TOKEN',
      pattern: /^xox[a-z]-[A-Za-z0-9-]+$/,
      problem: 'is not a Slack bot token',
      secret: true,
      doc: 'a plain Slack app bot token (local mode, tests)',
    }),
    signingSecret: text({
      env: 'TRAINWATCH_SLACK_SIGNING_SECRET',
      pattern: /^[A-Za-z0-9]{16,128}$/,
      problem: 'is not a Slack signing secret',
      secret: true,
      doc: 'a plain Slack app signing secret (local mode, tests)',
    }),
    apiUrl: text({
      env: 'TRAINWATCH_SLACK_API_URL',
      pattern: /^https?:\/\/\S+\/$/,
      problem: 'is not an http(s) URL ending in /',
      unset: 'https://slack.com/api/',
      doc: 'the Slack Web API (tests, local mode)',
    }),
  },
  pagerDutyUrl: text({
    env: 'TRAINWATCH_PAGERDUTY_URL',
    pattern: /^https?:\/\/\S+$/,
    problem: 'is not an http(s) URL',
    unset: 'https://events.pagerduty.com/v2/enqueue',
    doc: 'the Events API v2 endpoint (tests, a proxy)',
  }),
  remediation: {
    diagnoseDocument: text({
      env: 'TRAINWATCH_DIAGNOSE_DOCUMENT',
      unset: '— (no remediation)',
      doc: "name of the stack's diagnose SSM document",
    }),
    restartDocument: text({
      env: 'TRAINWATCH_RESTART_DOCUMENT',
      unset: '— (no remediation)',
      doc: "name of the stack's restart SSM document",
    }),
  },
  region: text({
    env: 'AWS_REGION',
    alsoEnv: 'AWS_DEFAULT_REGION',
    default: 'us-east-1',
    doc: 'the standard SDK setting (or `AWS_DEFAULT_REGION`)',
  }),
  endpoint: text({
    env: 'AWS_ENDPOINT_URL',
    doc: 'the standard SDK setting: points every client at an emulator',
  }),
} as const;
