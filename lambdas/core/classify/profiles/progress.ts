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
    // Its siblings say a CPU or RCU stalled ("soft lockup - CPU#3 stuck for 22s!", "rcu_sched self-detected stall").
    pattern: String.raw`\btask [^\n]{1,80}:\d+ blocked for more than \d+ seconds|\bsoft lockup - CPU#\d+ stuck for \d+s\b|\brcu_\w{0,20} (?:self-)?detected (?:expedited )?stalls?\b`,
    excludes: RAISED_CUDA,
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
    excludes: RAISED_CUDA,
    error_type: 'hang',
    severity: 'error',
    subsystem: 'disk',
    priority: 32,
  },
  {
    name: 'progress_not_advancing',
    // A watchdog of any framework reports what it counts (steps, heartbeats, log lines) stopped moving, or a limit
    // exceeded without progress. "loss has not improved" (early stopping) counts no progress: it is no stall.
    pattern: String.raw`\b${PROGRESS_NOUN}(?: count(?:er)?)? (?:has|have)(?:n't| not) (?:advanced|progressed|moved|increased|changed|been updated|updated)\b|\bexceeded ${DURATION}\b[^\n]{0,30}\bwithout (?:any |a )?(?:progress|output|heartbeats?|logs?|completing|completion|response|updates?|advancing)\b|\bstill waiting (?:for|on)\b[^\n]{0,100}\b(?:after|for|since) (?:over |more than )?${DURATION}\b|\b(?:has|have) been (?:waiting|blocked|stuck) (?:for )?(?:over |more than )?${DURATION}\b|\b(?:step|iteration|collective|all_?reduce|barrier|rank \d+)\b[^\n]{0,60}\bis taking (?:much |far |significantly )?longer than (?:expected|usual|\d)`,
    unless: String.raw`\b(?:if|when|whenever|unless)\b`,
    excludes: RAISED_CUDA,
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
    excludes: RAISED_CUDA,
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
  {
    name: 'waiting_repeated',
    // A launcher or store that says it is still waiting, again and again ("Waiting in store based barrier …",
    // "waiting for 3 workers to join"): once is set-up, five times is a job stuck before its first step.
    pattern: String.raw`\bWaiting in store[ _-]based barrier\b|\bwaiting for (?:\d+ |all |the )?(?:other |remaining )?(?:workers?|ranks?|peers?|processes|clients|nodes|hosts) to (?:join|connect|arrive|register|start)\b|\bstill waiting (?:for|on)\b|\bwaiting (?:for|on) [^\n]{1,60}\bto (?:join|connect|arrive|register|become ready|be ready|finish|complete|respond)\b`,
    // TensorFlow's "CreateSession still waiting for response from worker" every ten seconds is the same stuck set-up.
    min_lines: 5,
    excludes: RAISED_CUDA,
    error_type: 'hang',
    severity: 'error',
    subsystem: 'distributed',
    priority: 24,
  },
  {
    name: 'live_process_inspected',
    // Tools people point at a process that stopped moving, each printing its own mark: the kernel stack of a task
    // in a wait (/proc/PID/stack: "[<0>] futex_wait_queue_me+0x…"), strace attached to a task blocked in a futex or a
    // poll, py-spy top's table header, gdb attaching to a running process (a crash is opened from its core instead).
    pattern: String.raw`^\[<[0-9a-f]+>\] (?:futex_wait\w{0,20}|do_wait|pipe_wait\w{0,10}|poll_schedule_timeout\w{0,10}|do_sys_poll|ep_poll|do_select|sk_wait_data|unix_stream_\w{1,30}|wait_for_completion\w{0,20}|schedule\w{0,20}|nv\w{0,40}|uvm_\w{1,40})\+0x|^\s*(?:\[pid\s+\d+\]\s+|\d+\s+)?(?:\d\d:\d\d:\d\d(?:\.\d+)?\s+|\d{9,10}\.\d+\s+)?(?:futex\(0x[0-9a-f]+, FUTEX_WAIT\w{0,30}|epoll_wait\(\d|poll\(\[|ppoll\(\[|select\(\d|wait4\(-?\d)|^\s*%Own\s+%Total\s+OwnTime\s+TotalTime\s+Function\b|^Attaching to (?:process \d+|program:? )`,
    excludes: String.raw`${FATAL_SIGNAL}|${RAISED_CUDA}`,
    flags: 'm',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 27,
  },
  {
    name: 'progress_bar_frozen',
    // A tqdm bar still at zero items with ten minutes or more elapsed and no rate ("0/500 [12:41<?, ?it/s]"): the
    // first step never finished.
    pattern: String.raw`(?:^|[\s|])0/\d+ \[(?:\d{1,3}:\d\d:\d\d|[1-5]\d:\d\d)<\?, \?(?:it|s|ba|batch|step)/s\]`,
    flags: 'm',
    excludes: RAISED_CUDA,
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 25,
  },
  {
    name: 'pyspy_frames',
    // py-spy's frame lines ("    all_reduce (torch/distributed/distributed_c10d.py:2050)"), three or more, even
    // where the excerpt lost the thread header: a stack sampled from a live process, which is what a stuck job gets.
    pattern: String.raw`^\s{2,8}[\w.<>]{1,100} \((?:[\w.<>\\/:-]{1,300}\.py):\d+\)\s*$`,
    min_lines: 3,
    excludes: String.raw`${FATAL_SIGNAL}|${RAISED_CUDA}|^\s*Traceback \(most recent call last\)`,
    flags: 'm',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 25,
  },
];
