import type { SignalInput } from '../schema.js';

/** A process alive but not progressing: hangs and deadlocks, as logs and watchdogs report them. */
export const STALL_SIGNALS: readonly SignalInput[] = [
  {
    name: 'watchdog_stuck',
    pattern: String.raw`watchdog got stuck for (?<stuck_seconds>\d+) seconds|Heartbeat monitor timed out|heartbeat monitor[^\n]{0,300}no heartbeat`,
    error_type: 'hang',
    severity: 'critical',
    subsystem: 'nccl',
    priority: 36,
  },
  {
    name: 'hang_reported',
    pattern: String.raw`appears to be (?:hung|hanging|stuck)|(?:process|job|training|rank \d+|worker \d+) (?:is|seems|appears)(?: to be)? (?:hung|hanging|stuck)\b|\bhang detected\b|no progress (?:for|in) (?<seconds>\d+)\s*(?:s|sec|seconds)\b`,
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 35,
  },
  {
    name: 'deadlock',
    pattern: String.raw`\bdead ?lock(?:ed)?\b|Resource deadlock avoided|\bEDEADLK\b`,
    // The tokenizers fork warning names deadlocks on every healthy Hugging Face run.
    unless: String.raw`avoid deadlocks?|TOKENIZERS_PARALLELISM|to prevent (?:a )?deadlock|deadlock-prone`,
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 35,
  },
];
