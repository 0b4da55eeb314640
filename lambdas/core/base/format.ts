/** Three significant digits with k/M, trailing zeros dropped: 48.2k, 1.5M, 512, 0.714. */
export function formatRate(x: number): string {
  const sig = (v: number) => String(Number(v.toPrecision(3)));
  const a = Math.abs(x);
  if (a >= 999_500) return `${sig(x / 1e6)}M`;
  if (a >= 999.5) return `${sig(x / 1e3)}k`;
  return sig(x);
}

/** Seconds for people: 2.1, 0.45, 12. */
export function formatSeconds(s: number): string {
  return String(Number(s.toPrecision(s >= 10 ? 3 : 2)));
}

/** `14:05 UTC` (the date too when it is not the day of `now`). */
export function formatUtc(at: number, now: number): string {
  const iso = new Date(at).toISOString();
  const sameDay = iso.slice(0, 10) === new Date(now).toISOString().slice(0, 10);
  return `${sameDay ? '' : `${iso.slice(0, 10)} `}${iso.slice(11, 16)} UTC`;
}

/** Sorted GPU indices as compact ranges, the form kept in the run item: `0-3,6`. */
export function toRanges(indices: readonly number[]): string {
  const s = [...new Set(indices)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < s.length; ) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++;
    parts.push(j > i ? `${s[i]}-${s[j]}` : `${s[i]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The inverse of toRanges. */
export function fromRanges(ranges: string): number[] {
  const out: number[] = [];
  for (const part of ranges.split(',').filter(Boolean)) {
    const [a, b] = part.split('-').map(Number);
    for (let i = a!; i <= (b ?? a!); i++) out.push(i);
  }
  return out;
}

/** Ranges as people read them: `0–3, 6`. */
export function showRanges(ranges: string): string {
  return ranges.replaceAll('-', '–').replaceAll(',', ', ');
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
