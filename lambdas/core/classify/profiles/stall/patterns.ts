// Pieces of the stall signals, named once: what a crash prints, where a waiting stack sits, what a dump starts with.

// What a crash prints about itself: a backtrace or dump that says so is a crash, not a stall. gdb's own Ctrl-C
// ("received signal SIGINT, Interrupt.") is a person stopping a live process to dump it: no crash.
export const CRASHED = String.raw`Program (?:received|terminated with) signal (?!SIGINT, Interrupt)|Fatal Python error|core dumped`;
// The same with the fatal signals named, for native backtraces (a SIGSEGV'd thread also sits in a wait).
export const FATAL_SIGNAL = String.raw`${CRASHED}|\bSIGSEGV\b|\bSIGABRT\b|Segmentation fault|received signal (?!SIGINT, Interrupt)`;
// Python functions that block until something else happens (a queue, a lock, an event, a socket, select/poll, a
// CUDA synchronize, a collective or barrier, a thread join): a stack whose innermost frame is one of them waits.
export const WAITING_FRAME = String.raw`wait|wait_for|_wait_for_tstate_lock|acquire|get|_poll|poll|select|recv|_recv|_recv_bytes|recv_bytes|recv_into|readinto|join|synchronize|barrier|monitored_barrier|_store_based_barrier|all_reduce|all_gather\w{0,20}|reduce_scatter\w{0,20}|broadcast\w{0,20}|all_to_all\w{0,20}|wait_for_everyone|accept`;

// A Python frame inside a collective: torch.distributed (c10d, its 2.x logger wrapper), DeepSpeed's comm, or DDP
// synchronising buffers or parameters with its peers (a broadcast or an all-reduce under forward/backward).
export const COLLECTIVE_FRAME = String.raw`(?:distributed_c10d|c10d_logger)\.py", line \d+,? in \w+|deepspeed[/\\]comm[/\\]\w+\.py", line \d+,? in \w+|nn[/\\]parallel[/\\]distributed\.py", line \d+,? in _(?:sync\w{0,30}|distributed_broadcast\w{0,20}|match_all_reduce\w{0,20}|check_global_requires_backward_grad_sync)`;
// An error the process raised, not a wait: a CUDA call that failed, torch's own checks (devices, shapes, dtypes,
// autograd) and its C++ c10::Error. A stack printed around one (the C++ frames of a watchdog that caught it, a dump
// taken on the way out) is a crash's, and no stall signal may outrank it.
export const RAISED_ERROR = String.raw`CUDA error: |an illegal memory access was encountered|device-side assert triggered|unspecified launch failure|CUDNN_STATUS_(?!SUCCESS)[A-Z_]+|CUBLAS_STATUS_(?!SUCCESS)[A-Z_]+|Expected all tensors to be on the same device|mat1 and mat2 shapes cannot be multiplied|The size of tensor a \(\d+\) must match|Trying to backward through the graph a second time|one of the variables needed for gradient computation has been modified|expected scalar type \w+ but found \w+|an instance of 'c10::Error'`;
// A stack printed beside a fatal signal or a raised error is a crash's, not a stall's: most native and dump signals
// exclude this (a few add marks of their own, or use the narrower CRASHED).
export const NOT_STALLED = String.raw`${FATAL_SIGNAL}|${RAISED_ERROR}`;
// What a py-spy, gdb or faulthandler dump of a live process starts each thread with.
export const DUMP_MARK = String.raw`Thread (?:(?:\d+|0x[0-9a-f]+) )?\((?:idle|active)(?:\+gil)?\)|\(gdb\)|^#\d+\s+0x[0-9a-f]+ in |most recent call first|py-spy`;
// glibc's functions a thread sits in while taking a mutex (lll_lock_wait under pthread_mutex_lock), in gdb's, pstack's,
// eu-stack's and py-spy --native's spellings: a lock nobody releases.
export const MUTEX_WAIT = String.raw`__GI___lll_lock_wait\w{0,20}|__lll_lock_wait\w{0,20}|lll_lock_wait\w{0,20}|__GI___pthread_mutex_lock|___?pthread_mutex_lock\w{0,20}|lll_mutex_lock\w{0,20}|AbslInternalSpinLockDelay\w{0,30}`;
