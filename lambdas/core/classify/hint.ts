// When no signal knows a failure, the lines a person would read first: those that say, in any words, that something
// went wrong. A pointer for the alert and `--explain`, never a classification: error_type stays null.
import { logLines } from './lines.js';

/** One line worth reading, 1-based, trimmed to 300 characters. */
export interface Hint {
  readonly line: number;
  readonly text: string;
}

/**
 * The cues, strongest first, as data (the regex-safety test runs them on 1 MB lines): a log level, an exception class
 * or a program's own "error:" prefix (glog's `E1123`, `[ERROR]`, `FATAL`, `ValueError`); then words of failure in
 * prose, signals, exit codes, non-finite numbers; then warnings.
 */
export const HINT_CUES: readonly RegExp[] = [
  /\b(?:ERROR|FATAL|CRITICAL|PANIC|SEVERE|EMERG)\b|\b[Ee]rror:|[a-z](?:Error|Exception)\b|^\s{0,20}[EF]\d{4} |\[(?:E|F|[Ee]rror|[Ff]atal)\]/,
  /\b(?:errors?|fatal|fail(?:ed|ure|s|ing)?|abort(?:ed|ing)?|killed|panic(?:ked)?|exception|timed out|time ?out|terminat(?:ed|ing)|segmentation fault|core dumped|crash(?:ed|es)?|unable to|cannot|can't|could not|couldn't|refused|denied|lost|died|dead|hung|stuck|not responding|unreachable|invalid|exceeded|interrupted|out of memory|OOM|no space|not found|no such|mismatch|deadlock|nan|Xid|assertion|SIG(?:TERM|KILL|INT|HUP|SEGV|ABRT|BUS|USR1)|(?:got|received|caught) signal|non-?zero)\b|\bexit(?:ed)?(?: with)? (?:code|status)[ :=]{0,3}-?[1-9]/i,
  /\bWARN(?:ING)?\b|^\s{0,20}W\d{4} |\bwarn(?:ing)?:/,
];

/** Lines with those words that are no error: stack frames and their source lines, a traceback's header, zero counters. */
export const HINT_NOT =
  /^\s{0,40}File "|Traceback \(most recent call last\)|^\s{0,40}at [\w$.<>]{1,200}\(|^\s{2,40}(?:return|raise|assert|await|yield|if|elif|with|for|while|def)\b|\b(?:errors?|failures?|failed)\s{0,4}[:=]\s{0,4}0\b|\b(?:no|0|zero) (?:errors?|failures?)\b/i;

/** The first and the last line of the strongest cue present (one line when they are the same); none without a cue. */
export function errorHints(text: string): Hint[] {
  const lines = logLines(text);
  for (const cue of HINT_CUES) {
    let first = -1;
    let last = -1;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!cue.test(line) || HINT_NOT.test(line)) continue;
      if (first < 0) first = i;
      last = i;
    }
    if (first < 0) continue;
    return [...new Set([first, last])].map((i) => {
      const t = lines[i]!.trim();
      return { line: i + 1, text: t.length > 300 ? `${t.slice(0, 299)}…` : t };
    });
  }
  return [];
}
