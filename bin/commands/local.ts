import { parseArgs } from 'node:util';
import { ConfigError } from '../../lambdas/core/errors.js';
import { runLocal } from '../../local/localMode.js';

/** `trainwatch local [--max-seconds N] [--sweep-every S]`: the whole watchdog against the emulator. */
export async function run(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { 'max-seconds': { type: 'string' }, 'sweep-every': { type: 'string' } },
  });
  const maxSeconds = Number(values['max-seconds'] ?? 150);
  const sweepEvery = Number(values['sweep-every'] ?? 3);
  if (!(maxSeconds > 0) || !(sweepEvery > 0))
    throw new ConfigError('--max-seconds and --sweep-every take positive numbers of seconds');
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  return runLocal({
    maxSeconds,
    sweepEveryMs: sweepEvery * 1000,
    out: (l) => console.log(l),
    signal: controller.signal,
  });
}
