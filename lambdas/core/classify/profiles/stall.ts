import type { SignalInput } from '../schema.js';

/** A process alive but not progressing: hangs and deadlocks, as logs and watchdogs report them. */
export const STALL_SIGNALS: readonly SignalInput[] = [
  {
    name: 'watchdog_stuck',
    pattern: String.raw`watchdog got stuck for (?<stuck_seconds>\d+) seconds|Heartbeat monitor timed out|failed to send a keep-alive heartbeat|heartbeat monitor[^\n]{0,300}no heartbeat|\bno heartbeats? (?:received )?(?:for|in|since)\b`,
    error_type: 'hang',
    severity: 'critical',
    subsystem: 'nccl',
    priority: 36,
  },
  {
    name: 'hang_reported',
    pattern: String.raw`appears to be (?:hung|hanging|stuck)|(?:process|job|training|rank \d+|worker \d+) (?:is|seems|appears)(?: to be)? (?:hung|hanging|stuck)\b|\bhang detected\b|no progress (?:for|in) (?:the (?:last|past) )?(?<duration>\d+\s*(?:s|secs?|seconds?|m|mins?|minutes?|h|hours?))\b|\bstuck (?:at|on|in|after) (?:step|iteration|iter|epoch|batch)\b`,
    // A progress watchdog says for how long nothing advanced, in any unit; a person or a monitor says at which step.
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 35,
  },
  {
    name: 'stack_in_collective',
    // A stack dump (py-spy, gdb, faulthandler) whose frames sit in a collective or barrier: a hang. The
    // faulthandler form "line N in f" differs from a traceback's "line N, in f", which is an error, not a hang;
    // gdb's py-bt keeps the comma but says "most recent call first", which only dumps say.
    // py-spy prints a frame's file as Python knows it, relative or absolute; torch 2.x wraps every collective in
    // c10d_logger; a native stack waits in NCCL, ProcessGroupNCCL, or a blocking CUDA call (a synchronize, a copy
    // that drains the stream) behind a kernel that never finishes.
    pattern: String.raw`[(/](?:torch/distributed/(?:distributed_c10d|c10d_logger)|deepspeed/comm/\w+)\.py:\d+\)|distributed_c10d\.py"?, line \d+,? in \w+|\bin (?:nccl[A-Z]\w*|c10d::ProcessGroupNCCL::\w+(?:::\w+)?|cu(?:da)?(?:Stream|Device|Event)Synchronize|cu(?:da)?Memcpy\w{0,20})\s*\(`,
    requires: String.raw`Thread (?:(?:\d+|0x[0-9a-f]+) )?\((?:idle|active)(?:\+gil)?\)|\(gdb\)|^#\d+\s+0x[0-9a-f]+ in |most recent call first|py-spy`,
    excludes: String.raw`Program (?:received|terminated with) signal|Fatal Python error`,
    flags: 'im',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 34,
  },
  {
    name: 'stack_in_dataloader',
    // The same, with the frames in the DataLoader's queue or its workers: the classic DataLoader deadlock.
    pattern: String.raw`[(/]torch/utils/data/(?:dataloader|_utils/\w+)\.py:\d+\)|data/dataloader\.py", line \d+ in \w+`,
    requires: String.raw`Thread (?:(?:\d+|0x[0-9a-f]+) )?\((?:idle|active)(?:\+gil)?\)|\(gdb\)|^#\d+\s+0x[0-9a-f]+ in |most recent call first|py-spy`,
    flags: 'im',
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 33,
  },
  {
    name: 'stack_dump',
    // Someone dumped every thread of a live process (py-spy dump, gdb "thread apply all bt", a faulthandler
    // timeout): that is what people do to a job that stopped progressing. A crash's backtrace is not this.
    pattern: String.raw`^\s*Thread (?:(?:\d+|0x[0-9A-Fa-f]+) )?\((?:idle|active)(?:\+gil)?\): "MainThread"|^\(gdb\) thread apply all bt|^Timeout \(\d+:\d\d:\d\d\)!|^Python v\d+\.\d+\.\d+ \(/`,
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 30,
  },
  {
    name: 'gdb_mutex_wait',
    // A thread of a live process blocked taking a mutex (glibc's lll_lock_wait under pthread_mutex_lock): a lock
    // nobody releases, the mark of a lock-ordering or fork-after-threads deadlock, where a thread waiting on a
    // condition or a socket is merely waiting for a peer.
    pattern: String.raw`^#\d\s+(?:0x[0-9a-f]+ in )?(?:__GI___lll_lock_wait\w*|__lll_lock_wait\w*|__GI___pthread_mutex_lock|___?pthread_mutex_lock\w*|lll_mutex_lock\w*)\b`,
    requires: String.raw`\(gdb\)|^Thread \d+ \(Thread 0x[0-9a-f]+`,
    excludes: String.raw`Program (?:received|terminated with) signal|Fatal Python error|core dumped`,
    flags: 'im',
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 31,
  },
  {
    name: 'dataloader_timeout',
    // The DataLoader's own timeout: no worker produced a batch in time (a worker stuck or dead).
    pattern: String.raw`DataLoader timed out after \d+ seconds`,
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 32,
  },
  {
    name: 'gdb_thread_waiting',
    // gdb attached to a live process whose innermost frame waits (a futex, a condition, a busy-wait yield):
    // a process stuck, not a crash (a crash's backtrace says which signal killed it).
    pattern: String.raw`^#0\s+(?:0x[0-9a-f]+ in )?(?:pthread_cond_(?:timed)?wait|__futex_abstimed_wait\w*|futex_wait\w*|do_futex_wait\w*|__lll_lock_wait\w*|sem_(?:timed)?wait|sched_yield|epoll_wait|__GI___poll|poll|select|__?nanosleep)\b`,
    requires: String.raw`\(gdb\)`,
    excludes: String.raw`Program (?:received|terminated with) signal|Fatal Python error|core dumped`,
    flags: 'im',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 29,
  },
  {
    name: 'gdb_attached',
    // gdb attached to a live process ("(gdb) info threads", "(gdb) bt"): what people do to a stuck job. A
    // crash opened in gdb says which signal killed it, and that is a crash, not a stall.
    // gdb takes abbreviations ("info thread", "thr apply all bt", "where").
    pattern: String.raw`^\(gdb\)\s*(?:thr\w* apply all|info thr\w*|bt|backtrace|py-bt|where)\b`,
    excludes: String.raw`Program (?:received|terminated with) signal|Fatal Python error|core dumped|Segmentation fault`,
    flags: 'im',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 28,
  },
  {
    name: 'interrupted_in_dataloader',
    // A job stopped by hand (KeyboardInterrupt) while the DataLoader waited on its workers or their queue:
    // the DataLoader was stuck, the classic worker deadlock.
    pattern: String.raw`data/dataloader\.py", line \d+,? in (?:_shutdown_workers|_try_get_data|_get_data|__del__)\b`,
    requires: String.raw`^\s*KeyboardInterrupt\b`,
    flags: 'im',
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 32,
  },
  {
    name: 'interrupted_in_collective',
    // The same with the frames in a collective or barrier: a rank waited for peers that never came.
    pattern: String.raw`distributed_c10d\.py", line \d+,? in \w+|deepspeed/comm/\w+\.py", line \d+,? in \w+`,
    requires: String.raw`^\s*KeyboardInterrupt\b`,
    flags: 'im',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 31,
  },
  {
    name: 'defunct_workers',
    // ps shows Python children as zombies ("[python] <defunct>") while the parent waits: workers died and
    // nobody reaped them, so the parent blocks forever (a DataLoader worker deadlock).
    pattern: String.raw`\[python[\d.]*\] <defun`,
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 27,
  },
  {
    name: 'horovod_stall',
    // Horovod's stall inspector: some ranks submitted a collective and wait for ranks that submitted another (or
    // none): a mismatch that never resolves, which Horovod itself calls a deadlock. Printed while stalled, with
    // or without that word (its "may indicate" sentence would switch the generic deadlock signal off).
    pattern: String.raw`waiting for remainder of ranks for more than \d+ seconds|^\s*Stalled ranks:`,
    flags: 'im',
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 36,
  },
  {
    name: 'deadlock',
    pattern: String.raw`\bdead ?lock(?:ed)?\b|Resource deadlock avoided|\bEDEADLK\b`,
    // The tokenizers fork warning names deadlocks on every healthy Hugging Face run, and libraries warn that
    // fork() "may lead to" or "can cause" one (Python 3.12, Polars): a risk named, not a deadlock seen.
    unless: String.raw`avoid deadlocks?|TOKENIZERS_PARALLELISM|to prevent (?:a )?deadlock|deadlock-prone|\b(?:may|might|can|could)\b[^\n]{0,60}dead ?lock`,
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 35,
  },
];
