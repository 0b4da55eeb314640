import type { SignalInput } from '../../schema.js';
import { CRASHED, DUMP_MARK, NOT_STALLED, RAISED_ERROR } from './patterns.js';

/** Python stacks dumped from a live process (py-spy, faulthandler, gdb's py-bt): where a stuck job waits. */
export const DUMP_SIGNALS: readonly SignalInput[] = [
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
    excludes: String.raw`${CRASHED}|${RAISED_ERROR}`,
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
    excludes: RAISED_ERROR,
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
    excludes: RAISED_ERROR,
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 30,
  },
  {
    name: 'waiting_for_gil',
    // gdb's py-bt and py-spy print "Waiting for the GIL" for a thread blocked taking it: in a dump of a stuck process,
    // the GIL held by a thread that itself waits on a lock (a lock-order inversion), i.e. a deadlock.
    // python-gdb's py-bt numbers its frames ("#4 Waiting for a lock (e.g. GIL)"); a native backtrace shows the same
    // wait as CPython's take_gil under PyEval_RestoreThread / PyGILState_Ensure.
    pattern: String.raw`^\s*(?:#\d+\s+)?(?:Thread \S+ \S+ )?Waiting for (?:the GIL|a lock \(e\.g\. GIL\))\s*$|^#\d+\s+(?:0x[0-9a-f]+ in )?take_gil\b`,
    excludes: RAISED_ERROR,
    flags: 'im',
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 31,
  },
  {
    name: 'faulthandler_dump',
    // faulthandler dumps every thread on request (dump_traceback, a registered SIGUSR1, a watchdog of the job's
    // own): "Thread 0x… (most recent call first):". pytest-timeout's dump of a stuck test (a Timeout banner, then
    // "Stack of <thread> (id)" per thread) is the same. On a fatal signal it prints the same after "Fatal Python
    // error", which is a crash, not a stall.
    pattern: String.raw`^\s*(?:Current thread|Thread) 0x[0-9a-f]{4,16} \(most recent call first\):|^[^\n]{0,20}\+{5,} Timeout \+{5,}\s*$|^[^\n]{0,20}~{5,} Stack of [^\n]{1,80} \(\d+\) ~{5,}\s*$`,
    excludes: String.raw`Fatal Python error|Segmentation fault|\bSIGSEGV\b|\bSIGABRT\b|core dumped|Bus error|Floating point exception|${RAISED_ERROR}`,
    flags: 'im',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 29,
  },
  {
    name: 'pyspy_frames',
    // py-spy's frame lines ("    all_reduce (torch/distributed/distributed_c10d.py:2050)"), three or more, even
    // where the excerpt lost the thread header: a stack sampled from a live process, which is what a stuck job gets.
    pattern: String.raw`^\s{2,8}[\w.<>]{1,100} \((?:[\w.<>\\/:-]{1,300}\.py):\d+\)\s*$`,
    min_lines: 3,
    excludes: String.raw`${NOT_STALLED}|^\s*Traceback \(most recent call last\)`,
    flags: 'm',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 25,
  },
  {
    name: 'stack_in_lock',
    // A dump or a Ctrl-C traceback whose frames sit taking the logging module's lock or the import lock: the locks a
    // forked child inherits held (fork after threads) or a signal handler re-enters, never released: a deadlock.
    // py-spy prints "acquire (logging/__init__.py:917)", a traceback 'File ".../logging/__init__.py", line 917, in
    // acquire', the import system '<frozen importlib._bootstrap>'.
    pattern: String.raw`\b(?:acquire|_acquireLock|_acquire_module_lock|_lock_unlock_module) \((?:[^()\n]{0,200}[/\\])?(?:logging[/\\]__init__\.py|<frozen importlib\._bootstrap>):\d+\)|(?:logging[/\\]__init__\.py"|<frozen importlib\._bootstrap>"), line \d+,? in (?:acquire|_acquireLock|_acquire_module_lock|_lock_unlock_module)\b`,
    requires: String.raw`${DUMP_MARK}|^\s*KeyboardInterrupt\b`,
    excludes: NOT_STALLED,
    flags: 'im',
    error_type: 'deadlock',
    severity: 'error',
    subsystem: 'training',
    priority: 33,
  },
];
