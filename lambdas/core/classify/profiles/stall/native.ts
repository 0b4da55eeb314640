import type { SignalInput } from '../../schema.js';
import { CRASHED, MUTEX_WAIT, NOT_STALLED, RAISED_ERROR } from './patterns.js';

/**
 * A thread blocked taking a mutex, as gdb and as py-spy --native / eu-stack show it: one finding seen by two tools, so
 * one exclusion, severity and rank.
 */
const MUTEX_DEADLOCK = {
  excludes: NOT_STALLED,
  flags: 'im',
  error_type: 'deadlock',
  severity: 'error',
  subsystem: 'training',
  priority: 31,
} as const;

/** Native views of a live process (gdb, pstack, eu-stack, py-spy --native, strace, /proc/PID/stack): its waits. */
export const NATIVE_STACK_SIGNALS: readonly SignalInput[] = [
  {
    name: 'gdb_mutex_wait',
    // A thread of a live process blocked taking a mutex (glibc's lll_lock_wait under pthread_mutex_lock): a lock
    // nobody releases, the mark of a lock-ordering or fork-after-threads deadlock, where a thread waiting on a
    // condition or a socket is merely waiting for a peer.
    pattern: String.raw`^#\d\s+(?:0x[0-9a-f]+ in )?(?:${MUTEX_WAIT})\b`,
    requires: String.raw`\(gdb\)|^Thread \d+ \(Thread 0x[0-9a-f]+|^#\d+\s+0x[0-9a-f]+ in `,
    ...MUTEX_DEADLOCK,
  },
  {
    name: 'gdb_thread_waiting',
    // gdb attached to a live process whose innermost frame waits (a futex, a condition, a busy-wait yield):
    // a process stuck, not a crash (a crash's backtrace says which signal killed it).
    pattern: String.raw`^#0\s+(?:0x[0-9a-f]+ in )?(?:pthread_cond_(?:timed)?wait|__futex_abstimed_wait\w*|futex_wait\w*|do_futex_wait\w*|__lll_lock_wait\w*|sem_(?:timed)?wait|sched_yield|epoll_wait|__GI___poll|poll|select|__?nanosleep)\b`,
    requires: String.raw`\(gdb\)`,
    excludes: String.raw`${CRASHED}|${RAISED_ERROR}`,
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
    // until something else happens; MPI's waits (Open MPI's request wait, a PMPI collective, MPICH's progress wait). Crash backtraces say which signal ended them and are excluded.
    pattern: String.raw`^#\d+\s+(?:0x[0-9a-f]+ in )?(?:[\w:<>]{0,200}::)?(?:pthread_cond_(?:timed|clock)?wait\w*|__futex_abstimed_wait\w*|futex_wait\w*|do_futex_wait\w*|sem_(?:timed|clock)?wait\w*|AbslInternalPerThreadSemWait\w*|nsync_(?:cv_wait|mu_semaphore_p|sem_wait|mu_wait)\w{0,30}|Mutex::(?:Await\w*|Block)|CondVar::Wait\w*|condition_variable::wait\w*|cu(?:da)?(?:Stream|Event|Device|Ctx)Synchronize|ompi_request_\w{0,20}wait\w{0,10}|ompi_sync_wait\w{0,10}|PMPI_(?:Wait\w{0,10}|Barrier|Allreduce|Bcast|Allgather\w{0,10}|Alltoall\w{0,10}|Reduce\w{0,10}|Recv)|MPIR_Wait\w{0,20}|MPID_Progress_wait\w{0,20})\b`,
    requires: String.raw`^#\d+\s+0x[0-9a-f]+ in `,
    excludes: NOT_STALLED,
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
    excludes: String.raw`${CRASHED}|Segmentation fault|${RAISED_ERROR}`,
    flags: 'im',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 28,
  },
  {
    name: 'native_thread_polling',
    // A native backtrace whose innermost frame sits in a kernel wait (poll, epoll, select, a sleep, a yield spin) or
    // in an NCCL kernel that never finishes. gdb -batch prints no "(gdb)" prompt, and eu-stack drops gdb's "in":
    // "#0  0x00007f… in __GI___poll ()", "#0  0x00007f…  epoll_wait". A crash's backtrace names its signal.
    pattern: String.raw`^#[01]\s+(?:0x[0-9a-f]+\s+(?:in\s+)?)?(?:__GI___poll|__poll|poll|ppoll|epoll_wait|__select|select|__GI___nanosleep|__nanosleep|nanosleep|clock_nanosleep\w{0,20}|sched_yield|ncclKernel\w{0,60}|ncclDevKernel\w{0,60}|cu(?:da)?(?:Stream|Event|Device|Ctx)Synchronize)\b`,
    requires: String.raw`^#\d+\s+0x[0-9a-f]+\s`,
    excludes: NOT_STALLED,
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
    pattern: String.raw`^\s*(?:#\d+\s+0x[0-9a-f]+\s+)?(?:${MUTEX_WAIT})\s*(?:\(|$)`,
    requires: String.raw`Thread (?:\d+|0x[0-9a-f]+) \((?:idle|active)(?:\+gil)?\)|^#\d+\s+0x[0-9a-f]+\s`,
    ...MUTEX_DEADLOCK,
  },
  {
    name: 'live_process_inspected',
    // Tools people point at a process that stopped moving, each printing its own mark: the kernel stack of a task
    // in a wait (/proc/PID/stack: "[<0>] futex_wait_queue_me+0x…"), strace attached to a task blocked in a futex or a
    // poll, py-spy top's table header, gdb attaching to a running process (a crash is opened from its core instead).
    pattern: String.raw`^\[<[0-9a-f]+>\] (?:futex_wait\w{0,20}|do_wait|pipe_wait\w{0,10}|poll_schedule_timeout\w{0,10}|do_sys_poll|ep_poll|do_select|sk_wait_data|unix_stream_\w{1,30}|wait_for_completion\w{0,20}|schedule\w{0,20}|nv\w{0,40}|uvm_\w{1,40})\+0x|^\s*(?:\[pid\s+\d+\]\s+|\d+\s+)?(?:\d\d:\d\d:\d\d(?:\.\d+)?\s+|\d{9,10}\.\d+\s+)?(?:futex\(0x[0-9a-f]+, FUTEX_WAIT\w{0,30}|epoll_wait\(\d|poll\(\[|ppoll\(\[|select\(\d|wait4\(-?\d)|^\s*%Own\s+%Total\s+OwnTime\s+TotalTime\s+Function\b|^Attaching to (?:process \d+|program:? )`,
    excludes: NOT_STALLED,
    flags: 'm',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 27,
  },
  {
    name: 'gdb_threads_dumped',
    // gdb's and pstack's "thread apply all bt" of a live process: a header per thread ("Thread 3 (Thread 0x7f… (LWP
    // 4567)) "python":") over its frames, whatever they wait in (a driver's ioctl, a read, a syscall). Two threads or
    // more is a process someone attached to because it stopped moving; a core file's dump says it crashed.
    pattern: String.raw`^Thread \d+ \(Thread 0x[0-9a-f]+ \(LWP \d+\)\)`,
    requires: String.raw`^#\d+\s+0x[0-9a-f]+ in `,
    min_lines: 2,
    excludes: String.raw`${NOT_STALLED}|^Core was generated by`,
    flags: 'im',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 25,
  },
];
