/** The files of the heartbeat protocol, relative to `{prefix}/{run_id}/`. */
export const RunFile = {
  metadata: 'metadata.json',
  progress: 'progress.json',
  error: '_error',
  complete: '_complete',
  log: 'logs/training_log_latest.txt',
} as const;

export type RunFileName = keyof typeof RunFile;

const BY_PATH: ReadonlyMap<string, RunFileName> = new Map(
  Object.entries(RunFile).map(([name, path]) => [path, name as RunFileName]),
);

/** Which protocol file a path (relative to the run prefix) is, if any. */
export function runFileOf(relativePath: string): RunFileName | undefined {
  return BY_PATH.get(relativePath);
}

/** Folder where a restart archives the previous attempt's sentinels. */
export const ATTEMPTS_DIR = 'attempts/';

/** Largest heartbeat JSON we parse; a bigger one is a finding, not a read. */
export const MAX_JSON_BYTES = 256 * 1024;
/** How much of `_error` and of the log tail we read (the end matters most). */
export const MAX_TEXT_BYTES = 64 * 1024;

/** `/training-runs/` → `training-runs`, and what is wrong with it if it holds a character a key prefix may not. */
export function normalisePrefix(raw: string): { prefix: string; problem?: string } {
  const prefix = raw.trim().replace(/^\/+|\/+$/g, '');
  return /^[A-Za-z0-9._\-/]*$/.test(prefix)
    ? { prefix }
    : { prefix, problem: 'may hold only letters, digits, . _ - /' };
}
