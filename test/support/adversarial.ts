/**
 * Inputs that keep a backtracking regex engine busiest: the pattern's own literal phrases and common log
 * separators, repeated to `size` characters so that a match starts everywhere and never completes. A pattern
 * like `NCCL.*timed out after` is quadratic on "NCCL NCCL NCCL …": it runs for hours on 1 MB.
 */
export function adversarial(source: string, size: number): string[] {
  // Literal phrases of the pattern: what is left between escapes, groups, classes and quantifiers.
  const phrases = source
    .replace(/\\[dDsSwWbB]|\\.|\[[^\]]*\]|\{\d*,?\d*\}|\(\?(?:<[A-Za-z_]\w*>|[:=!]|<[=!])/g, '\n')
    .split(/[\n()|?*+^$.]/)
    .map((p) => p.trim())
    .filter((p) => p.length >= 3);
  const units = new Set([
    ' ',
    'a',
    '9',
    '[rank1]: ',
    'NVRM: Xid (PCI:0000:',
    ': nan',
    "'",
    'a.',
    ...phrases.map((p) => `${p} `),
  ]);
  return [...units].map((u) => u.repeat(Math.ceil(size / u.length)));
}

/** Length of an unbounded quantifier (`*`, `+`, `{n,}`, lazy or not) at `i`, or 0. */
function unboundedAt(source: string, i: number): number {
  const m = /^(?:[*+]|\{\d+,\})\??/.exec(source.slice(i));
  return m ? m[0].length : 0;
}

/**
 * Groups repeated without bound that themselves contain an unbounded repetition, such as `(a+)+` or `(?:\s*x)*`:
 * the nested quantifiers behind exponential backtracking. A bounded `?` or `{0,N}` around them is harmless.
 */
export function nestedQuantifiers(source: string): string[] {
  const found: string[] = [];
  const stack: { start: number; unbounded: boolean }[] = [{ start: 0, unbounded: false }];
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '[') {
      // A character class ends at the first unescaped ']' after its first character.
      for (i += source[i + 1] === '^' ? 2 : 1, i++; i < source.length && source[i] !== ']'; i++)
        if (source[i] === '\\') i++;
      continue;
    }
    if (ch === '(') stack.push({ start: i, unbounded: false });
    else if (ch === ')' && stack.length > 1) {
      const group = stack.pop()!;
      const q = unboundedAt(source, i + 1);
      if (q && group.unbounded) found.push(source.slice(group.start, i + 1 + q));
      // The enclosing group contains whatever this one contained, and this group's own repetition.
      stack[stack.length - 1]!.unbounded ||= group.unbounded || q > 0;
    } else if (unboundedAt(source, i)) stack[stack.length - 1]!.unbounded = true;
  }
  return found;
}
