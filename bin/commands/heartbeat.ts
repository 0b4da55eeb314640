import {
  attemptOption,
  type CommandDeps,
  imdsInstanceId,
  keyValues,
  numberOption,
  parseCommandLine,
  RunFileWriter,
  TARGET_OPTIONS,
  TARGET_USAGE,
} from './heartbeatWriter.js';

const USAGE = `usage: trainwatch heartbeat [--start] [--status S] [--phase P] [options]

Writes the run's metadata.json (the run is alive), keeping the fields already there. Call it every minute.
  --start             a new attempt: clear the last attempt's _error and _complete, set started_at,
                      and count the attempt up (unless --attempt/TRAINWATCH_ATTEMPT says which)
  --status S          default running (starting with --start); a finished run keeps its final status
  --phase P           e.g. setup, training, checkpointing (setup and checkpointing get more time)
  --attempt N         default TRAINWATCH_ATTEMPT
  --instance-id ID    default TRAINWATCH_INSTANCE_ID, else IMDSv2 (with --start)
  --job-name, --checkpoint-dir, --log-path, --profile NAME, --stale-minutes M
  --set key=value     any other field (repeatable; a value that parses as JSON is written as JSON)
${TARGET_USAGE}
`;

const FINAL = new Set(['completed', 'failed', 'preempted']);

const OPTIONS = {
  ...TARGET_OPTIONS,
  start: { type: 'boolean' },
  status: { type: 'string' },
  phase: { type: 'string' },
  attempt: { type: 'string' },
  'instance-id': { type: 'string' },
  'job-name': { type: 'string' },
  'checkpoint-dir': { type: 'string' },
  'log-path': { type: 'string' },
  profile: { type: 'string' },
  'stale-minutes': { type: 'string' },
  set: { type: 'string', multiple: true },
} as const;

/** `trainwatch heartbeat`: metadata.json for scripts that are not Python. */
export async function run(args: string[], deps: CommandDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const { values } = parseCommandLine(args, OPTIONS, USAGE);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const files = RunFileWriter.from(values, env, deps.s3);
  const now = deps.now?.() ?? new Date();
  let attempt = attemptOption(values.attempt, env);
  let instanceId = values['instance-id'] ?? (env.TRAINWATCH_INSTANCE_ID?.trim() || undefined);
  const current = await files.metadata();
  let status = values.status;
  if (values.start) {
    if (attempt === undefined) {
      const previous = current.attempt;
      attempt =
        typeof previous === 'number' && Number.isInteger(previous) && previous >= 1 ? previous + 1 : 1;
    }
    instanceId ??= await imdsInstanceId(env);
    // The watchdog reads _error/_complete as this attempt's end: the last attempt's must go first.
    await files.delete('error');
    await files.delete('complete');
    status ??= 'starting';
  } else if (status === undefined) {
    // A heartbeat loop that outlives `complete` or `error` must not turn the run back to running.
    status = FINAL.has(String(current.status)) ? String(current.status) : 'running';
  }
  await files.writeMetadata(
    {
      ...keyValues(values.set, '--set'),
      status,
      phase: values.phase,
      attempt,
      instance_id: instanceId,
      job_name: values['job-name'],
      checkpoint_dir: values['checkpoint-dir'],
      log_path: values['log-path'],
      profile: values.profile,
      stale_minutes: numberOption(values['stale-minutes'], '--stale-minutes'),
      ...(values.start ? { started_at: now.toISOString(), client: 'trainwatch-cli' } : {}),
    },
    now,
    values.start ? {} : current,
  );
  if (values['log-file']) await files.uploadLogTail(values['log-file']);
  return 0;
}
