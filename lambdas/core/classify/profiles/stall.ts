import type { SignalInput } from '../schema.js';

// What a crash prints about itself: a backtrace or dump that says so is a crash, not a stall.
export const CRASHED = String.raw`Program (?:received|terminated with) signal|Fatal Python error|core dumped`;
// The same with the fatal signals named, for native backtraces (a SIGSEGV'd thread also sits in a wait).
export const FATAL_SIGNAL = String.raw`${CRASHED}|\bSIGSEGV\b|\bSIGABRT\b|Segmentation fault|received signal`;
// Python functions that block until something else happens (a queue, a lock, an event, a socket, select/poll, a
// CUDA synchronize, a collective or barrier, a thread join): a stack whose innermost frame is one of them waits.
export const WAITING_FRAME = String.raw`wait|wait_for|_wait_for_tstate_lock|acquire|get|_poll|poll|select|recv|_recv|_recv_bytes|recv_bytes|recv_into|readinto|join|synchronize|barrier|monitored_barrier|_store_based_barrier|all_reduce|all_gather\w{0,20}|reduce_scatter\w{0,20}|broadcast\w{0,20}|all_to_all\w{0,20}|wait_for_everyone|accept`;

// A Python frame inside a collective: torch.distributed (c10d, its 2.x logger wrapper), DeepSpeed's comm, or DDP
// synchronising buffers or parameters with its peers (a broadcast or an all-reduce under forward/backward).
export const COLLECTIVE_FRAME = String.raw`(?:distributed_c10d|c10d_logger)\.py", line \d+,? in \w+|deepspeed[/\\]comm[/\\]\w+\.py", line \d+,? in \w+|nn[/\\]parallel[/\\]distributed\.py", line \d+,? in _(?:sync\w{0,30}|distributed_broadcast\w{0,20}|match_all_reduce\w{0,20}|check_global_requires_backward_grad_sync)`;
// A CUDA call that failed: the process raised, it did not wait. A stack printed around one (the C++ frames of a
// watchdog that caught it, a dump taken on the way out) is a crash's, and a stall signal must not outrank it.
export const RAISED_CUDA = String.raw`CUDA error: |an illegal memory access was encountered|device-side assert triggered|unspecified launch failure|CUDNN_STATUS_(?!SUCCESS)[A-Z_]+|CUBLAS_STATUS_(?!SUCCESS)[A-Z_]+`;
// What a py-spy, gdb or faulthandler dump of a live process starts each thread with.
export const DUMP_MARK = String.raw`Thread (?:(?:\d+|0x[0-9a-f]+) )?\((?:idle|active)(?:\+gil)?\)|\(gdb\)|^#\d+\s+0x[0-9a-f]+ in |most recent call first|py-spy`;

/** A process alive but not progressing: hangs and deadlocks, as logs and watchdogs report them. */
export const STALL_SIGNALS: readonly SignalInput[] = [
  {
    name: 'watchdog_stuck',
    pattern: String.raw`watchdog got stuck for (?<stuck_seconds>\d+) seconds|Heartbeat monitor timed out|failed to send a keep-alive heartbeat|heartbeat monitor[^\n]{0,300}no heartbeat|\bno heartbeats? (?:received )?(?:for|in|since)\b|\bheartbeats? (?:timed out|timeout (?:exceeded|expired|reached)|lost|missed|expired)\b|\b(?:missed|lost) (?:\d+ )?(?:consecutive )?heartbeats?\b`,
    // Ray marks a dead node by its missed heartbeats: a node gone (preempted, crashed), not a process stuck.
    unless: String.raw`marked dead|raylet|node (?:died|failure|is dead)`,
    excludes: RAISED_CUDA,
    error_type: 'hang',
    severity: 'critical',
    subsystem: 'nccl',
    priority: 36,
  },
  {
    name: 'hang_reported',
    pattern: String.raw`appears to be (?:hung|hanging|stuck)|(?:process|job|training|rank \d+|worker \d+) (?:is|seems|appears)(?: to be)? (?:hung|hanging|stuck)\b|\bhang detected\b|\b(?:no|not made any|not made|without(?: making)?(?: any)?) (?:new )?(?:progress|output|log(?: line)?s?|updates?)(?: (?:was|has been) (?:made|seen|written|printed))? (?:for|in|since) (?:the (?:last|past) )?(?:(?:over|more than|at least) )?(?<duration>\d+(?:\.\d+)?\s*(?:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|days?))\b|\b(?:stuck|hung|hangs|hanging|freezes|frozen|froze|stalls|stalled) (?:at|on|in|after|during) (?:the )?(?:(?:first|last|same|\d+(?:st|nd|rd|th)?|\d+k) )?(?:steps?|iterations?|iters?|epochs?|batch(?:es)?)\b|\b(?:stuck|hung|hangs|hanging|frozen|freezes|stalls|stalled) (?:at|on) \d{1,3}%|Liveness probe failed|\b(?:stuck|hung|hangs|hanging|frozen|froze|freezes|stalled|stalls|deadlocked)\b(?: (?:there|here|again|forever|completely))? for (?:over |more than |about |around |nearly |almost |at least )?(?:\d+(?:\.\d+)?|an?|several|many|multiple) ?(?:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|days?)\b|\b(?:stuck|hung|hangs|hanging|frozen|freezes|stalled|stalls|blocks forever|waits forever|waiting forever) (?:in|on|at|inside|during|within) (?:the |a |an |its )?(?:first |second |last |final )?(?:(?:dist|torch\.distributed|c10d)\.)?(?:all_?reduce|all_?gather\w{0,20}|reduce_?scatter\w{0,20}|broadcast|barrier|all_?to_?all|collectives?|nccl\w{0,30}|init_process_group|backward|forward|optimizer\.step|data ?loader|validation|evaluation|eval|checkpoint(?:ing)?|(?:torch\.)?cuda\.synchronize|synchronize|join)\b`,
    // A progress watchdog says for how long nothing advanced (no progress, no output, no log line), in any unit;
    // a person or a monitor says at which step. Kubernetes restarts a container whose liveness probe stops
    // answering: a process alive but no longer serving, which is what a hang looks like from outside.
    // A watchdog's settings ("abort if no progress for 1800 s") and notes that silence is normal are no hang.
    unless: String.raw`\b(?:if|when|whenever|unless)\b[^\n]{0,60}\b(?:no|not made|without)\b[^\n]{0,20}(?:progress|output|log)|\b(?:is|are) (?:normal|expected)\b`,
    excludes: RAISED_CUDA,
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
    requires: DUMP_MARK,
    excludes: String.raw`Program (?:received|terminated with) signal|Fatal Python error|${RAISED_CUDA}`,
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
    requires: DUMP_MARK,
    excludes: RAISED_CUDA,
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
    // py-spy names every thread it dumps, the main one or not ("Thread 0x7F… (idle): "Thread-3"").
    pattern: String.raw`^\s*Thread (?:(?:\d+|0x[0-9A-Fa-f]+) )?\((?:idle|active)(?:\+gil)?\): "[^"\n]{1,100}"|^\(gdb\) thread apply all bt|^Timeout \(\d+:\d\d:\d\d\)!|^Python v\d+\.\d+\.\d+ \(/`,
    excludes: RAISED_CUDA,
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
    requires: String.raw`\(gdb\)|^Thread \d+ \(Thread 0x[0-9a-f]+|^#\d+\s+0x[0-9a-f]+ in `,
    excludes: String.raw`${FATAL_SIGNAL}|${RAISED_CUDA}`,
    flags: 'im',
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 31,
  },
  {
    name: 'waiting_for_gil',
    // gdb's py-bt and py-spy print "Waiting for the GIL" for a thread blocked taking it: in a dump of a stuck process,
    // the GIL held by a thread that itself waits on a lock (a lock-order inversion), i.e. a deadlock.
    // python-gdb's py-bt numbers its frames ("#4 Waiting for a lock (e.g. GIL)"); a native backtrace shows the same
    // wait as CPython's take_gil under PyEval_RestoreThread / PyGILState_Ensure.
    pattern: String.raw`^\s*(?:#\d+\s+)?(?:Thread \S+ \S+ )?Waiting for (?:the GIL|a lock \(e\.g\. GIL\))\s*$|^#\d+\s+(?:0x[0-9a-f]+ in )?take_gil\b`,
    excludes: RAISED_CUDA,
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
    excludes: RAISED_CUDA,
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
    excludes: String.raw`${CRASHED}|${RAISED_CUDA}`,
    flags: 'im',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 29,
  },
  {
    name: 'native_stack_waiting',
    // A native backtrace (gdb, pstack, eu-stack) with a frame in a wait primitive of any library (a condition
    // variable, a futex, a semaphore, absl's Mutex await, a CUDA event or stream synchronize): a thread parked
    // until something else happens. Crash backtraces say which signal ended them and are excluded.
    pattern: String.raw`^#\d+\s+(?:0x[0-9a-f]+ in )?(?:[\w:<>]{0,200}::)?(?:pthread_cond_(?:timed|clock)?wait\w*|__futex_abstimed_wait\w*|futex_wait\w*|do_futex_wait\w*|sem_(?:timed|clock)?wait\w*|AbslInternalPerThreadSemWait\w*|Mutex::(?:Await\w*|Block)|CondVar::Wait\w*|condition_variable::wait\w*|cu(?:da)?(?:Stream|Event|Device|Ctx)Synchronize)\b`,
    requires: String.raw`^#\d+\s+0x[0-9a-f]+ in `,
    excludes: String.raw`${FATAL_SIGNAL}|${RAISED_CUDA}`,
    flags: 'im',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 27,
  },
  {
    name: 'gdb_attached',
    // gdb attached to a live process ("(gdb) info threads", "(gdb) bt"): what people do to a stuck job. A
    // crash opened in gdb says which signal killed it, and that is a crash, not a stall.
    // gdb takes abbreviations ("info thread", "thr apply all bt", "where").
    pattern: String.raw`^\(gdb\)\s*(?:thr\w* apply all|info thr\w*|bt|backtrace|py-bt|where)\b`,
    excludes: String.raw`${CRASHED}|Segmentation fault|${RAISED_CUDA}`,
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
    excludes: RAISED_CUDA,
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 32,
  },
  {
    name: 'interrupted_while_blocked',
    // A traceback ending in KeyboardInterrupt whose frames wait on something (a queue, a lock, an event, a socket,
    // select/poll, a CUDA synchronize, a collective or barrier, a thread join): the user stopped a process that
    // sat waiting, i.e. a stuck one. A launcher waiting on its children (subprocess.py) is no such wait: Ctrl-C
    // on a launcher always lands there, whatever its workers did.
    pattern: String.raw`File "[^"\n]{1,300}", line \d+,? in (?:${WAITING_FRAME}|_cuda_synchronize|_all_gather_base|_reduce_scatter_base|_wait_for_workers)\s*$`,
    unless: String.raw`subprocess\.py"`,
    requires: String.raw`^[^\n]{0,80}KeyboardInterrupt\s*$`,
    flags: 'im',
    excludes: RAISED_CUDA,
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 30,
  },
  {
    name: 'blocked_stack_without_exception',
    // Python frames with no exception anywhere, the innermost ones waiting (a queue, a lock, an event, a socket, a
    // collective): a stack printed from a process that was not failing (a dump, or a Ctrl-C whose last line was not
    // kept), i.e. one that sat waiting. A crash's traceback always ends in the exception it raised.
    pattern: String.raw`^\s*File "[^"\n]{1,300}", line \d+,? in (?:${WAITING_FRAME}|_try_get_data|_get_data)\s*$`,
    // Two frames at least (a frame, its source lines, the next frame): one quoted frame is no stack.
    requires: String.raw`^\s*File "[^"\n]{1,300}", line \d+,? in \w+\s*\n(?:[^\n]*\n){0,3}\s*File "`,
    // Case-sensitive: an exception class is CamelCase. A launcher waiting on its children is no such wait.
    excludes: String.raw`\b[A-Z]\w*(?:Error|Exception|Interrupt|Exit)\b|\b[a-z]\w*\.\w*(?:Error|Exception)\b|Fatal Python error|Segmentation fault|core dumped|subprocess\.py"|${RAISED_CUDA}`,
    flags: 'm',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 26,
  },
  {
    name: 'faulthandler_dump',
    // faulthandler dumps every thread on request (dump_traceback, a registered SIGUSR1, a watchdog of the job's
    // own): "Thread 0x… (most recent call first):". On a fatal signal it prints the same after "Fatal Python
    // error", which is a crash, not a stall.
    pattern: String.raw`^\s*(?:Current thread|Thread) 0x[0-9a-f]{4,16} \(most recent call first\):`,
    excludes: String.raw`Fatal Python error|Segmentation fault|\bSIGSEGV\b|\bSIGABRT\b|core dumped|Bus error|Floating point exception|${RAISED_CUDA}`,
    flags: 'im',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 29,
  },
  {
    name: 'interrupted_in_collective',
    // The same with the frames in a collective or barrier: a rank waited for peers that never came.
    // torch 2.x wraps every collective in c10d_logger's wrapper: the same wait, one frame further out.
    // DDP's own buffer and parameter syncs are the same broadcast or all-reduce; Windows paths use backslashes.
    pattern: COLLECTIVE_FRAME,
    requires: String.raw`^\s*KeyboardInterrupt\b`,
    flags: 'im',
    excludes: RAISED_CUDA,
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
    excludes: RAISED_CUDA,
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
    excludes: RAISED_CUDA,
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 36,
  },
  {
    name: 'deadlock',
    pattern: String.raw`\bdead ?lock(?:ed)?\b|Resource deadlock (?:avoided|would occur)|\bEDEADLK\b`,
    // glibc's strerror(EDEADLK) is "Resource deadlock avoided", libstdc++'s std::system_error "… would occur".
    // The tokenizers fork warning names deadlocks on every healthy Hugging Face run, and libraries warn that
    // fork() "may lead to" or "can cause" one (Python 3.12, Polars): a risk named, not a deadlock seen.
    unless: String.raw`avoid deadlocks?|TOKENIZERS_PARALLELISM|to prevent (?:a )?deadlock|deadlock-prone|\b(?:may|might|can|could)\b[^\n]{0,60}dead ?lock`,
    excludes: RAISED_CUDA,
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 35,
  },
];
