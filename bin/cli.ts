import { TrainwatchError } from '../lambdas/core/base/errors.js';

/** A CLI command: gets its arguments, returns the exit code. */
export type Command = (args: string[]) => Promise<number>;

/** Commands load lazily so `trainwatch classify` never pays for the AWS SDK. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<{ run: Command }> }> = {
  'setup-local': {
    summary: 'create the bucket, table and topic on the local emulator',
    load: () => import('./commands/setupLocal.js'),
  },
  sweep: { summary: 'run one sweep [--now ISO-8601]', load: () => import('./commands/sweep.js') },
  status: {
    summary: "show the live runs' states [RUN_ID] [--json]; --ended [--limit N]: runs that ended",
    load: () => import('./commands/status.js'),
  },
  local: {
    summary:
      'run trainwatch locally against the emulator with simulated runs; --deployed: the real stack in MiniStack',
    load: () => import('./commands/local.js'),
  },
  ack: {
    summary: 'acknowledge a run: reminders stop until its next transition RUN_ID [--by NAME] [--note TEXT]',
    load: () => import('./commands/ack.js'),
  },
  silence: {
    summary:
      'hold alerts to people (--run ID | --job JOB | --all) (--for 2h | --until-resolved) --reason TEXT [--by NAME]',
    load: () => import('./commands/silence.js'),
  },
  restart: {
    summary: 'ask remediation to probe a failed run again and restart it if policy and probe allow RUN_ID',
    load: () => import('./commands/restart.js'),
  },
  silences: {
    summary: 'list silences with the time left [--json]',
    load: () => import('./commands/silences.js'),
  },
  unsilence: { summary: 'end a silence now ID [--by NAME]', load: () => import('./commands/unsilence.js') },
  classify: {
    summary: 'classify a log or error text [FILE | --run RUN_ID] [--profile P] [--all | --explain]',
    load: () => import('./commands/classify.js'),
  },
  heartbeat: {
    summary: "write a run's metadata.json, from shell scripts [--start] [--phase P]",
    load: () => import('./commands/heartbeat.js'),
  },
  'node-heartbeat': {
    summary: "write this node's nodes/{node_rank}.json with GPU telemetry [--step N]",
    load: () => import('./commands/nodeHeartbeat.js'),
  },
  progress: {
    summary: "write a run's progress.json STEP [--total-steps N] [--loss X]",
    load: () => import('./commands/progress.js'),
  },
  error: {
    summary: "write a run's _error [MESSAGE | stdin] [--preempted]",
    load: () => import('./commands/error.js'),
  },
  complete: {
    summary: "write a run's _complete [--summary JSON]",
    load: () => import('./commands/complete.js'),
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: trainwatch <command> [options]\n\ncommands:\n${lines.join('\n')}\n`;
}

/** Dispatches `argv` to a command; errors of ours print as one line, not a stack. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`trainwatch: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return 2;
  }
  try {
    const { run } = await command.load();
    return await run(args);
  } catch (e) {
    // One clear line for people; the stack only when asked for (TRAINWATCH_DEBUG=1).
    const err = e instanceof Error ? e : new Error(String(e));
    const label = err instanceof TrainwatchError ? '' : `${err.name}: `;
    process.stderr.write(`trainwatch ${name}: ${label}${err.message}\n`);
    if (process.env.TRAINWATCH_DEBUG) process.stderr.write(`${err.stack}\n`);
    return 1;
  }
}
