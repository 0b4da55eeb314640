import type { SignalInput } from '../../schema.js';
import { COLLECTIVE_FRAME, RAISED_ERROR, WAITING_FRAME } from './patterns.js';

/** Python tracebacks of a process stopped by hand (Ctrl-C) or printed without an exception: what it waited on. */
export const INTERRUPTED_SIGNALS: readonly SignalInput[] = [
  {
    name: 'interrupted_in_dataloader',
    // A job stopped by hand (KeyboardInterrupt) while the DataLoader waited on its workers or their queue:
    // the DataLoader was stuck, the classic worker deadlock.
    pattern: String.raw`data/dataloader\.py", line \d+,? in (?:_shutdown_workers|_try_get_data|_get_data|__del__)\b`,
    requires: String.raw`^\s*KeyboardInterrupt\b`,
    flags: 'im',
    excludes: RAISED_ERROR,
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
    excludes: RAISED_ERROR,
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
    excludes: String.raw`\b[A-Z]\w*(?:Error|Exception|Interrupt|Exit)\b|\b[a-z]\w*\.\w*(?:Error|Exception)\b|Fatal Python error|Segmentation fault|core dumped|subprocess\.py"|${RAISED_ERROR}`,
    flags: 'm',
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 26,
  },
  {
    name: 'interrupted_in_collective',
    // The same with the frames in a collective or barrier: a rank waited for peers that never came.
    // torch 2.x wraps every collective in c10d_logger's wrapper: the same wait, one frame further out.
    // DDP's own buffer and parameter syncs are the same broadcast or all-reduce; Windows paths use backslashes.
    pattern: COLLECTIVE_FRAME,
    requires: String.raw`^\s*KeyboardInterrupt\b`,
    flags: 'im',
    excludes: RAISED_ERROR,
    error_type: 'hang',
    severity: 'error',
    subsystem: 'training',
    priority: 31,
  },
];
