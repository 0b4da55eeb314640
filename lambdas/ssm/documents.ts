import { readFileSync } from 'node:fs';
import { PARAM_PATTERNS } from '../core/protocol/ssmParams.js';

/** The scripts, read at synth time: the documents embed them verbatim. */
const script = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');

interface Param {
  readonly type: 'String';
  readonly description: string;
  readonly allowedPattern: string;
  readonly default?: string;
}

const p = (description: string, allowedPattern: string, dflt?: string): Param => ({
  type: 'String',
  description,
  allowedPattern,
  ...(dflt !== undefined ? { default: dflt } : {}),
});

/**
 * runCommand lines: export each parameter as a single-quoted variable (allowedPattern admits no quote),
 * write the script to a private temp file with a quoted heredoc (no expansion), run it with bash, clean up.
 * A temp file rather than `bash <<EOF`, because a command in the script that reads stdin would eat the script.
 */
function runCommand(scriptName: string, env: Readonly<Record<string, string>>): string[] {
  const body = script(scriptName);
  if (body.includes('{{')) throw new Error(`${scriptName} must not contain "{{" (SSM would substitute it)`);
  const marker = 'TRAINWATCH_SCRIPT_END';
  if (body.includes(marker)) throw new Error(`${scriptName} must not contain ${marker}`);
  return [
    ...Object.entries(env).map(([k, param]) => `export ${k}='{{ ${param} }}'`),
    'tw_script=$(mktemp /tmp/trainwatch.XXXXXX)',
    `cat > "$tw_script" <<'${marker}'`,
    ...body.replace(/\n$/, '').split('\n'),
    marker,
    'bash "$tw_script"; tw_rc=$?; rm -f "$tw_script"; exit $tw_rc',
  ];
}

/** The diagnosis document's parameters. */
export const DIAGNOSE_PARAMETERS = {
  RunId: p('The run being diagnosed', PARAM_PATTERNS.runId),
  PidFile: p('PID file of the training process (absolute path), or empty', PARAM_PATTERNS.path, ''),
  ProcessPattern: p(
    'pgrep -f pattern matching the training process, or empty',
    PARAM_PATTERNS.processPattern,
    '',
  ),
  CheckpointDir: p('Checkpoint directory (absolute path), or empty', PARAM_PATTERNS.path, ''),
  LogPath: p('Training log file on the instance (absolute path), or empty', PARAM_PATTERNS.path, ''),
  TailLines: p('How many log lines to return', PARAM_PATTERNS.count, '40'),
} as const;

/** The restart document's parameters. */
export const RESTART_PARAMETERS = {
  RunId: p('The run being restarted', PARAM_PATTERNS.runId),
  Attempt: p('The number of the new attempt', PARAM_PATTERNS.count),
  Command: p(
    "The operator's configured command for the job (no shell syntax); the checkpoint path is appended",
    PARAM_PATTERNS.command,
  ),
  CheckpointDir: p(
    'Checkpoint directory (step_N/ folders or a latest link), or empty',
    PARAM_PATTERNS.path,
    '',
  ),
  PidFile: p('PID file of the previous attempt, or empty', PARAM_PATTERNS.path, ''),
  ProcessPattern: p('pgrep -f pattern of the previous attempt, or empty', PARAM_PATTERNS.processPattern, ''),
  DelaySeconds: p('Backoff before the new attempt starts', PARAM_PATTERNS.count, '0'),
  RunAsUser: p('User to run the command as, or empty for the agent user', PARAM_PATTERNS.user, ''),
  StopTimeoutSeconds: p(
    'How long to wait for a hung process to exit after SIGTERM',
    PARAM_PATTERNS.count,
    '60',
  ),
  Resume: p(
    'require: refuse when no checkpoint is found; allow_scratch: start from scratch',
    PARAM_PATTERNS.resume,
    'require',
  ),
  NodeRank: p("This node's rank in a multi-node job (TRAINWATCH_NODE_RANK)", PARAM_PATTERNS.count, '0'),
  NNodes: p('How many nodes the job runs on (TRAINWATCH_NNODES)', PARAM_PATTERNS.count, '1'),
  MasterAddr: p("Node 0's host name (TRAINWATCH_MASTER_ADDR), or empty", PARAM_PATTERNS.host, ''),
  ExcludeHosts: p(
    'Hosts the scheduler should avoid, comma-separated (TRAINWATCH_EXCLUDE_HOSTS), or empty',
    PARAM_PATTERNS.hosts,
    '',
  ),
} as const;

/** SSM Command document (schema 2.2) that diagnoses a run on its instance; see lambdas/ssm/diagnose.sh. */
export function diagnoseDocument(): Record<string, unknown> {
  return {
    schemaVersion: '2.2',
    description:
      'trainwatch: diagnose a training run (process, GPUs, Xid, disks, memory, NCCL transport, log tail)',
    parameters: DIAGNOSE_PARAMETERS,
    mainSteps: [
      {
        action: 'aws:runShellScript',
        name: 'diagnose',
        precondition: { StringEquals: ['platformType', 'Linux'] },
        inputs: {
          timeoutSeconds: '120',
          runCommand: runCommand('diagnose.sh', {
            TW_RUN_ID: 'RunId',
            TW_PID_FILE: 'PidFile',
            TW_PROCESS_PATTERN: 'ProcessPattern',
            TW_CHECKPOINT_DIR: 'CheckpointDir',
            TW_LOG_PATH: 'LogPath',
            TW_TAIL_LINES: 'TailLines',
          }),
        },
      },
    ],
  };
}

/** SSM Command document (schema 2.2) that restarts a run from its latest checkpoint; see lambdas/ssm/restart.sh. */
export function restartDocument(): Record<string, unknown> {
  return {
    schemaVersion: '2.2',
    description:
      "trainwatch: stop what is left of a run and start the operator's command from the latest checkpoint",
    parameters: RESTART_PARAMETERS,
    mainSteps: [
      {
        action: 'aws:runShellScript',
        name: 'restart',
        precondition: { StringEquals: ['platformType', 'Linux'] },
        inputs: {
          timeoutSeconds: '300',
          runCommand: runCommand('restart.sh', {
            TW_RUN_ID: 'RunId',
            TW_ATTEMPT: 'Attempt',
            TW_COMMAND: 'Command',
            TW_CHECKPOINT_DIR: 'CheckpointDir',
            TW_PID_FILE: 'PidFile',
            TW_PROCESS_PATTERN: 'ProcessPattern',
            TW_DELAY_SECONDS: 'DelaySeconds',
            TW_RUN_AS: 'RunAsUser',
            TW_STOP_TIMEOUT: 'StopTimeoutSeconds',
            TW_RESUME: 'Resume',
            TW_NODE_RANK: 'NodeRank',
            TW_NNODES: 'NNodes',
            TW_MASTER_ADDR: 'MasterAddr',
            TW_EXCLUDE_HOSTS: 'ExcludeHosts',
          }),
        },
      },
    ],
  };
}
