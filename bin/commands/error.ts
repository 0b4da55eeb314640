import { readFileSync } from 'node:fs';
import { MAX_TEXT_BYTES } from '../../lambdas/core/protocol/files.js';
import {
  type CommandDeps,
  parseCommandLine,
  RunFileWriter,
  TARGET_OPTIONS,
  TARGET_USAGE,
} from './heartbeatWriter.js';

const USAGE = `usage: trainwatch error [MESSAGE ...] [--file PATH] [--preempted]

Writes the run's _error (the run failed) with MESSAGE, the text of --file, or stdin, and marks
metadata.json failed. The watchdog classifies the text: include the traceback or the log's last lines.
  --preempted         the run was stopped by SIGTERM (spot interruption, scancel): status preempted
${TARGET_USAGE}

  trap 'trainwatch error --preempted' TERM
  python train.py 2> err.log || tail -n 200 err.log | trainwatch error
`;

const OPTIONS = { ...TARGET_OPTIONS, file: { type: 'string' }, preempted: { type: 'boolean' } } as const;

const PREEMPTED = 'Preempted: received SIGTERM (signal 15): spot interruption, scancel, or shutdown.';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `trainwatch error`: _error for scripts that are not Python. */
export async function run(args: string[], deps: CommandDeps = {}): Promise<number> {
  const { values, positionals } = parseCommandLine(args, OPTIONS, USAGE);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const files = RunFileWriter.from(values, deps.env ?? process.env, deps.s3);
  let message = positionals.join(' ');
  if (!message && values.file) message = readFileSync(values.file, 'utf8');
  // Stdin only when something is piped in: a terminal (or nothing) must not make a trap handler wait.
  else if (!message && (deps.stdin || !process.stdin.isTTY)) message = await (deps.stdin ?? readStdin)();
  message = message.trim();
  if (values.preempted) message = message ? `${PREEMPTED}\n${message}` : PREEMPTED;
  if (!message) message = 'failed (trainwatch error was given no message)';
  const bytes = Buffer.from(`${message}\n`, 'utf8');
  // The watchdog reads the end of _error; keep that end.
  await files.put(
    'error',
    bytes.subarray(Math.max(0, bytes.length - MAX_TEXT_BYTES)),
    'text/plain; charset=utf-8',
  );
  if (values['log-file']) await files.uploadLogTail(values['log-file']);
  const now = deps.now?.() ?? new Date();
  await files.writeMetadata(
    { status: values.preempted ? 'preempted' : 'failed', finished_at: now.toISOString() },
    now,
  );
  return 0;
}
