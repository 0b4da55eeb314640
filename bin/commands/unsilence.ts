import { parseArgs } from 'node:util';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import { createApp } from '../../lambdas/wiring/app.js';
import { byFrom, nowFrom } from './oncallArgs.js';

/** `trainwatch unsilence ID [--by NAME]`: ends a silence now; the next sweep sends its summary once. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { by: { type: 'string' }, now: { type: 'string' } },
    allowPositionals: true,
  });
  const id = positionals[0];
  if (positionals.length !== 1 || !id || !/^s-[0-9a-f]{8}$/.test(id))
    throw new ConfigError('usage: trainwatch unsilence ID (an id from trainwatch silences, e.g. s-1a2b3c4d)');
  const ended = await createApp(process.env).silences.endSilence(id, byFrom(values.by), nowFrom(values.now));
  if (!ended) {
    console.error(`trainwatch unsilence: no active silence ${id}`);
    return 1;
  }
  console.log(`silence ${id} ended: the next sweep sends one summary of the runs still unhealthy`);
  return 0;
}
