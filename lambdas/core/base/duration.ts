const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `90s`, `10m`, `2h`, `1d`, `500ms` (or a bare number of seconds) into milliseconds; undefined if invalid. */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m) return undefined;
  const ms = Number(m[1]) * UNITS[m[2] ?? 's']!;
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : undefined;
}

/** `3h 12m`, `45s`: the two largest units, for people. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const parts: [number, string][] = [
    [Math.floor(s / 86400), 'd'],
    [Math.floor((s % 86400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
    [s % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  if (first < 0) return '0s';
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, u]) => `${n}${u}`)
    .join(' ');
}
