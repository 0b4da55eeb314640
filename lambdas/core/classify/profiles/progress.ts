import type { SignalInput } from '../schema.js';
import { FATAL_SIGNAL, RAISED_CUDA } from './stall.js';

// A duration as watchdogs print it: "600 seconds", "30 min", "1.5h".
const DURATION = String.raw`\d+(?:\.\d+)?\s?(?:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)`;
// What a progress watchdog counts: a step, an iteration, a heartbeat, a log line, a counter.
const PROGRESS_NOUN = String.raw`(?:global[_ ])?(?:steps?|iterations?|iters?|progress|heartbeats?|counter|log(?: line)?s?|output|batch(?:es)?|samples?)`;

/**
 * Stalls as the layers around a training process see them: the kernel's hung-task detector, a network file system
 * that stopped answering, a progress or heartbeat watchdog of any framework, a native dump taken without gdb's
 * prompt (gdb -batch, pstack, eu-stack, py-spy --native). Each says a process is alive and not moving.
 */
export const PROGRESS_SIGNALS: readonly SignalInput[] = [
  {
    name: 'kernel_hung_task',
    // The kernel's khungtaskd: "INFO: task python:4211 blocked for more than 120 seconds." A task in
    // uninterruptible sleep (a dead NFS mount, a GPU driver call that never returns) cannot be killed or progress.
    pattern: String.raw`\btask [^\n]{1,80}:\d+ blocked for more than \d+ seconds`,
    error_type: 'hang',
    severity: 'error',
    subsystem: 'host',
    priority: 33,
  },
  {
    name: 'storage_not_responding',
    // NFS ("nfs: server fs01 not responding, still trying"), and Lustre's lost connection whose operations "will wait
    // for recovery": every read or write of the job blocks until the server is back.
    pattern: String.raw`\bserver [\w.:[\]-]{1,100} not responding\b|\bin progress operations using this service will wait for recovery\b`,
    error_type: 'hang',
    severity: 'error',
    subsystem: 'disk',
    priority: 32,
  },
  {
    name: 'progress_not_advancing',
    // A watchdog of any framework reports what it counts (steps, heartbeats, log lines) stopped moving, or a limit
    // exceeded without progress. "loss has not improved" (early stopping) counts no progress: it is no stall.
    pattern: String.raw`\b${PROGRESS_NOUN}(?: count(?:er)?)? (?:has|have)(?:n't| not) (?:advanced|progressed|moved|increased|changed|been updated|updated)\b|\bexceeded ${DURATION}\b[^\n]{0,30}\bwithout (?:any |a )?(?:progress|output|heartbeats?|logs?|completing|completion|response|updates?|advancing)\b|\b(?:step|iteration|collective|all_?reduce|barrier|rank \d+)\b[^\n]{0,60}\bis taking (?:much |far |significantly )?longer than (?:expected|usual|\d)`,
    unless: String.raw`\b(?:if|when|whenever|unless)\b`,
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 33,
  },
  {
    name: 'watchdog_fired',
    // A job's own watchdog (Megatron's, a trainer's, a timeout wrapper's) that fired or expired: nothing progressed
    // within its limit. Its settings ("watchdog timeout set to 600") are no firing.
    pattern: String.raw`\bwatchdog\b[^\n]{0,100}\b(?:timed out|expired|triggered|fired|detected (?:a )?(?:hang|stall))\b|\b(?:hang|stall) watchdog\b[^\n]{0,60}\b(?:timeout|killing|terminating|aborting)\b`,
    unless: String.raw`\b(?:set|setting|configured|enabled|if|when|will)\b`,
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 25,
  },
  {
    name: 'native_thread_polling',
    // A native backtrace whose innermost frame sits in a kernel wait (poll, epoll, select, a sleep, a yield spin) or
    // in an NCCL kernel that never finishes. gdb -batch prints no "(gdb)" prompt, and eu-stack drops gdb's "in":
    // "#0  0x00007f… in __GI___poll ()", "#0  0x00007f…  epoll_wait". A crash's backtrace names its signal.
    pattern: String.raw`^#[01]\s+(?:0x[0-9a-f]+\s+(?:in\s+)?)?(?:__GI___poll|__poll|poll|ppoll|epoll_wait|__select|select|__GI___nanosleep|__nanosleep|nanosleep|clock_nanosleep\w{0,20}|sched_yield|ncclKernel\w{0,60}|ncclDevKernel\w{0,60}|cu(?:da)?(?:Stream|Event|Device|Ctx)Synchronize)\b`,
    requires: String.raw`^#\d+\s+0x[0-9a-f]+\s`,
    excludes: String.raw`${FATAL_SIGNAL}|${RAISED_CUDA}`,
    flags: 'im',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 26,
  },
  {
    name: 'native_mutex_wait',
    // py-spy --native and eu-stack show a thread blocked taking a mutex in glibc (lll_lock_wait under
    // pthread_mutex_lock) without gdb's frame numbers: a lock nobody releases, a deadlock (see gdb_mutex_wait).
    pattern: String.raw`^\s*(?:#\d+\s+0x[0-9a-f]+\s+)?(?:__GI___lll_lock_wait\w{0,20}|__lll_lock_wait\w{0,20}|lll_lock_wait\w{0,20}|__GI___pthread_mutex_lock|___?pthread_mutex_lock\w{0,20})\s*(?:\(|$)`,
    requires: String.raw`Thread (?:\d+|0x[0-9a-f]+) \((?:idle|active)(?:\+gil)?\)|^#\d+\s+0x[0-9a-f]+\s`,
    excludes: String.raw`${FATAL_SIGNAL}|${RAISED_CUDA}`,
    flags: 'im',
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 31,
  },
];
