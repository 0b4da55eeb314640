/** Longest line the regexes run on: a minified JSON blob in a log must not cost seconds. */
const MAX_LINE = 4000;

/** A text's lines as the signals and the hints read them: any newline convention, each cut at MAX_LINE. */
export function logLines(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => (l.length > MAX_LINE ? l.slice(0, MAX_LINE) : l));
}
