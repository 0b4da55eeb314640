import { existsSync, readFileSync } from 'node:fs';
import {
  BUILTIN_PROFILES,
  classifyDetailed,
  explain,
  loadProfile,
  type Profile,
} from '../../lambdas/core/classify/index.js';
import { ConfigError } from '../../lambdas/core/errors.js';
import { MAX_TEXT_BYTES } from '../../lambdas/core/protocol/files.js';

const USAGE = `usage: trainwatch classify [FILE] [--profile NAME|FILE] [--all | --explain]

Classifies a log or error text (stdin when no FILE) and prints one JSON object:
  {"error_type", "restartable", "signal", "severity", "fields"}   (error_type is null when nothing matched)
--profile  a built-in profile (${[...BUILTIN_PROFILES.keys()].join(', ')}) or a JSON/YAML profile file
--all      also print "matches" (every signal that matched, best first) and "explanation" (why the winner won)
--explain  print, as text instead of JSON, why: the winning signal, the line it matched, the runners-up and
           the rule that ordered them (the same text as the alert's diagnosis)
`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function profileArg(value: string): Profile | string {
  if (BUILTIN_PROFILES.has(value)) return value;
  if (!existsSync(value))
    throw new ConfigError(`--profile ${JSON.stringify(value)} is neither a built-in profile nor a file`);
  return loadProfile(readFileSync(value, 'utf8'));
}

/** `trainwatch classify [FILE] [--profile P] [--all|--explain]`: the JSON contract other tools rely on. */
export async function run(args: string[]): Promise<number> {
  let file: string | undefined;
  let profile: Profile | string | undefined;
  let all = false;
  let explainOnly = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--help' || a === '-h') {
      process.stdout.write(USAGE);
      return 0;
    }
    if (a === '--all') all = true;
    else if (a === '--explain') explainOnly = true;
    else if (a === '--profile' || a.startsWith('--profile=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
      if (!v) throw new ConfigError('--profile needs a value');
      profile = profileArg(v);
    } else if (a.startsWith('-') && a !== '-') throw new ConfigError(`unknown option ${a}\n${USAGE}`);
    else if (file) throw new ConfigError(`only one FILE may be given\n${USAGE}`);
    else file = a;
  }
  const raw = file && file !== '-' ? readFileSync(file) : Buffer.from(await readStdin());
  // Same window as the sweep reads: the end of a log is where the failure is.
  const text = raw.subarray(Math.max(0, raw.length - MAX_TEXT_BYTES)).toString('utf8');
  if (all && explainOnly) throw new ConfigError(`--all and --explain exclude each other\n${USAGE}`);
  const d = classifyDetailed(text, profile);
  if (explainOnly) {
    process.stdout.write(`${explain(d).join('\n')}\n`);
    return 0;
  }
  const out: Record<string, unknown> = {
    error_type: d.error_type,
    restartable: d.restartable,
    signal: d.signal,
    severity: d.severity,
    fields: d.fields,
  };
  if (all) {
    out.matches = d.matches;
    out.explanation = explain(d, d.matches.length);
  }
  process.stdout.write(`${JSON.stringify(out, null, all ? 2 : undefined)}\n`);
  return 0;
}
