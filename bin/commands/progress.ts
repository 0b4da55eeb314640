import { ConfigError } from '../../lambdas/core/base/errors.js';
import { ProgressSchema } from '../../lambdas/core/protocol/schemas.js';
import {
  type CommandDeps,
  keyValues,
  numberOption,
  parseCommandLine,
  RunFileWriter,
  TARGET_OPTIONS,
  TARGET_USAGE,
} from './heartbeatWriter.js';

const USAGE = `usage: trainwatch progress STEP [--total-steps N] [--loss X] [--learning-rate X] [--metric k=v ...]

Writes the run's progress.json (the run makes progress). Each call starts Node (about a second):
call it at your logging interval, not every step.
  STEP                the step just finished (or --step N)
  --metric k=v        any other metric (repeatable; a value that parses as JSON is written as JSON)
${TARGET_USAGE}
`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  step: { type: 'string' },
  'total-steps': { type: 'string' },
  loss: { type: 'string' },
  'learning-rate': { type: 'string' },
  metric: { type: 'string', multiple: true },
} as const;

/** `trainwatch progress`: progress.json for scripts that are not Python. */
export async function run(args: string[], deps: CommandDeps = {}): Promise<number> {
  const { values, positionals } = parseCommandLine(args, OPTIONS, USAGE);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 1 || (positionals.length === 1 && values.step !== undefined))
    throw new ConfigError(`give the step once\n${USAGE}`);
  const step = numberOption(values.step ?? positionals[0], 'STEP', true);
  if (step === undefined) throw new ConfigError(`STEP is required\n${USAGE}`);
  const files = RunFileWriter.from(values, deps.env ?? process.env, deps.s3);
  const progress = {
    step,
    total_steps: numberOption(values['total-steps'], '--total-steps', true),
    loss: numberOption(values.loss, '--loss'),
    learning_rate: numberOption(values['learning-rate'], '--learning-rate'),
    ...keyValues(values.metric, '--metric'),
    last_updated: (deps.now?.() ?? new Date()).toISOString(),
  };
  const body = Object.fromEntries(Object.entries(progress).filter(([, v]) => v !== undefined));
  const checked = ProgressSchema.safeParse(body);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new ConfigError(`progress.json would be rejected: ${issue.path.join('.')}: ${issue.message}`);
  }
  await files.putJson('progress', body);
  if (values['log-file']) await files.uploadLogTail(values['log-file']);
  return 0;
}
