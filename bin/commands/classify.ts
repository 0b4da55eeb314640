import { existsSync, readFileSync } from 'node:fs';
import { ConfigError } from '../../lambdas/core/base/errors.js';
import {
  BUILTIN_PROFILES,
  classifyDetailed,
  explain,
  loadProfile,
  type Profile,
} from '../../lambdas/core/classify/index.js';
import { runKey } from '../../lambdas/core/model/listing.js';
import { MAX_TEXT_BYTES, type RunFileName } from '../../lambdas/core/protocol/files.js';
import { assertRunId } from '../../lambdas/core/protocol/runId.js';

const USAGE = `usage: trainwatch classify [FILE | --run RUN_ID] [--profile NAME|FILE] [--all | --explain]

Classifies a log or error text (stdin when no FILE) and prints one JSON object:
  {"error_type", "restartable", "signal", "severity", "fields"}   (error_type is null when nothing matched)
--run      classify a run's _error and log tail as the watchdog does, wherever its files are (live, or
           moved to the ended folder); its own profile unless --profile is given
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

/** A run's `_error` and log tail, read where its files are now: its folder, or its ended folder. */
async function runText(runId: string): Promise<{ text: Buffer; profile?: Profile | string }> {
  // Loaded here: classifying a file or stdin never pays for the AWS SDK.
  const { createApp } = await import('../../lambdas/wiring/app.js');
  const app = createApp(process.env);
  const r = await app.states.get(assertRunId(runId));
  const read = (f: RunFileName) =>
    r?.ended
      ? app.runs.readEnded(r.ended.folder, f, MAX_TEXT_BYTES)
      : app.runs.read(runId, f, MAX_TEXT_BYTES);
  const [error, log] = await Promise.all([read('error'), read('log')]);
  if (!error && !log)
    throw new ConfigError(
      `run ${runId} has no _error and no log tail ${r?.ended ? `in ${r.ended.folder}` : `under ${runKey(app.config.prefix, runId)}`}`,
    );
  const text = Buffer.concat([Buffer.from(error ?? ''), Buffer.from('\n'), Buffer.from(log ?? '')]);
  return { text, profile: r?.meta?.profile ?? app.config.remediation.profile };
}

/** `trainwatch classify [FILE | --run RUN_ID] [--profile P] [--all|--explain]`: the JSON contract other tools rely on. */
export async function run(args: string[]): Promise<number> {
  let file: string | undefined;
  let runId: string | undefined;
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
    else if (a === '--run' || a.startsWith('--run=')) {
      runId = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
      if (!runId) throw new ConfigError('--run needs a run id');
    } else if (a === '--explain') explainOnly = true;
    else if (a === '--profile' || a.startsWith('--profile=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
      if (!v) throw new ConfigError('--profile needs a value');
      profile = profileArg(v);
    } else if (a.startsWith('-') && a !== '-') throw new ConfigError(`unknown option ${a}\n${USAGE}`);
    else if (file) throw new ConfigError(`only one FILE may be given\n${USAGE}`);
    else file = a;
  }
  if (runId && file) throw new ConfigError(`give a FILE or --run, not both\n${USAGE}`);
  const fromRun = runId ? await runText(runId) : undefined;
  profile ??= fromRun?.profile;
  const raw = fromRun
    ? fromRun.text
    : file && file !== '-'
      ? readFileSync(file)
      : Buffer.from(await readStdin());
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
