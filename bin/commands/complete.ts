import { ConfigError } from '../../lambdas/core/base/errors.js';
import {
  type CommandDeps,
  keyValues,
  parseCommandLine,
  RunFileWriter,
  TARGET_OPTIONS,
  TARGET_USAGE,
} from './heartbeatWriter.js';

const USAGE = `usage: trainwatch complete [--summary JSON] [--set k=v ...]

Writes the run's _complete (the run succeeded) with a JSON summary, and marks metadata.json completed.
  --summary JSON      an object merged into the summary
  --set k=v           one summary field (repeatable; a value that parses as JSON is written as JSON)
${TARGET_USAGE}
`;

const OPTIONS = {
  ...TARGET_OPTIONS,
  summary: { type: 'string' },
  set: { type: 'string', multiple: true },
} as const;

function summaryOption(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigError('--summary must be a JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigError('--summary must be a JSON object');
  return value as Record<string, unknown>;
}

/** `trainwatch complete`: _complete for scripts that are not Python. */
export async function run(args: string[], deps: CommandDeps = {}): Promise<number> {
  const { values, positionals } = parseCommandLine(args, OPTIONS, USAGE);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length) throw new ConfigError(`unexpected ${JSON.stringify(positionals[0])}\n${USAGE}`);
  const files = RunFileWriter.from(values, deps.env ?? process.env, deps.s3);
  const now = deps.now?.() ?? new Date();
  const previous = await files.metadata();
  if (values['log-file']) await files.uploadLogTail(values['log-file']);
  await files.putJson('complete', {
    run_id: files.runId,
    status: 'completed',
    ...(typeof previous.attempt === 'number' ? { attempt: previous.attempt } : {}),
    finished_at: now.toISOString(),
    ...summaryOption(values.summary),
    ...keyValues(values.set, '--set'),
  });
  await files.writeMetadata({ status: 'completed', finished_at: now.toISOString() }, now);
  return 0;
}
