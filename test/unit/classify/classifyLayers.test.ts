import { describe } from 'vitest';
import {
  itClassifiesEachRow,
  itIsNoStall,
  itStaysHealthy,
  type SignalRow,
} from '../../support/classifyRows.js';

// Fourth blind round: the layers around a training process (the kernel, a file system, a progress watchdog, native
// and live-process tools, sockets by errno, stores, schedulers) and the class of the exception raised as a last
// resort. Synthetic lines written from each tool's format, never corpus excerpts, never counted as accuracy; each row
// names the signal it exercises.
const FAILURES: readonly SignalRow[] = [
  // The kernel and the file systems under a stuck job.
  ['hang', 'kernel_hung_task', '[86400.1] INFO: task python3:40211 blocked for more than 120 seconds.'],
  ['hang', 'kernel_hung_task', 'watchdog: BUG: soft lockup - CPU#12 stuck for 23s! [python:4021]'],
  ['hang', 'kernel_hung_task', 'rcu: INFO: rcu_sched self-detected stall on CPU'],
  ['hang', 'storage_not_responding', '[123.4] nfs: server fs01.internal not responding, still trying'],
  ['hang', 'storage_not_responding', 'Timeout, server 10.0.0.5 not responding.'],
  [
    'hang',
    'storage_not_responding',
    'Lustre: lustre-OST0003-osc: Connection to lustre-OST0003 (at 10.0.0.9@o2ib) was lost; in progress operations using this service will wait for recovery to complete',
  ],
  // Progress watchdogs of any framework.
  ['hang', 'progress_not_advancing', '[monitor] global_step has not advanced in 900 s, dumping stacks'],
  ['hang', 'progress_not_advancing', 'ERROR: heartbeat counter has not been updated for 20 minutes'],
  ['hang', 'progress_not_advancing', 'Training exceeded 1800 seconds without progress; aborting'],
  ['hang', 'progress_not_advancing', 'rank 3: allreduce at step 1200 is taking longer than expected (605 s)'],
  ['hang', 'watchdog_fired', '[E] step watchdog expired after 600 s: no step completed'],
  ['hang', 'watchdog_fired', 'hang watchdog: no progress, terminating the job'],
  ['hang', 'hang_reported', 'training is stuck after 3 epochs with 100% GPU utilisation'],
  ['hang', 'hang_reported', 'Evaluation hangs at 97% and never returns'],
  ['hang', 'progress_bar_frozen', 'Epoch 0:   0%|          | 0/3125 [45:02<?, ?it/s]'],
  ['hang', 'progress_bar_frozen', ' 0%|          | 0/100 [1:02:11<?, ?it/s]'],
  [
    'hang',
    'watchdog_stuck',
    '[rank7]:[E1019 ProcessGroupNCCL.cpp:1375] [PG 3 Rank 7] First PG on this rank that detected no heartbeat of its watchdog.',
  ],
  [
    'hang',
    'watchdog_stuck',
    'Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.',
  ],
  [
    'hang',
    'watchdog_stuck',
    '[PG 0 Rank 1] Could not acquire GIL within 300 ms on exit, possible GIL induced hang',
  ],
  ['hang', 'hang_reported', 'WARN: worker 3 became unresponsive during epoch 4'],
  // Launchers and stores that keep saying they wait.
  [
    'hang',
    'waiting_repeated',
    Array.from(
      { length: 6 },
      (_, i) =>
        `I0101 00:0${i}:00 distributed_c10d.py:280] Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 (world_size=8, worker_count=${i + 1}, timeout=0:30:00)`,
    ).join('\n'),
  ],
  [
    'hang',
    'waiting_repeated',
    Array.from({ length: 5 }, () => '[launcher] still waiting for 2 workers to join').join('\n'),
  ],
  // Native and live-process dumps without gdb's prompt.
  [
    'hang',
    'native_thread_polling',
    'Thread 1 (Thread 0x7f1 (LWP 42)):\n#0  0x00007f1a2b3c in __GI___poll (fds=0x1, nfds=1) at poll.c:29\n#1  0x00007f1a2b40 in socketProgress () from libnccl.so.2',
  ],
  [
    'hang',
    'native_thread_polling',
    'TID 4211:\n#0  0x00007f8b0c2a1a35 epoll_wait\n#1  0x00007f8b0c2b1000 uv__io_poll',
  ],
  [
    'hang',
    'native_thread_polling',
    '#0  0x00007f in ncclKernel_AllReduce_RING_LL_Sum_float ()\n#1  0x0000aa in ?? ()',
  ],
  [
    'deadlock',
    'native_mutex_wait',
    'Thread 0x7F3A (active): "MainThread"\n    __lll_lock_wait (libc.so.6)\n    pthread_mutex_lock (libc.so.6)\n    forward (model.py:40)',
  ],
  [
    'hang',
    'live_process_inspected',
    '$ cat /proc/4211/stack\n[<0>] futex_wait_queue_me+0xc4/0x120\n[<0>] futex_wait+0x10a/0x250',
  ],
  [
    'hang',
    'live_process_inspected',
    'strace: Process 4211 attached\nfutex(0x7f8a1c0029c8, FUTEX_WAIT_PRIVATE, 0, NULL',
  ],
  [
    'hang',
    'live_process_inspected',
    '  %Own   %Total  OwnTime  TotalTime  Function (filename)\n100.00% 100.00%   12.0s    12.0s   wait (threading.py)',
  ],
  [
    'hang',
    'stack_dump',
    'Thread 0x7F3A12 (idle): "Thread-7 (_pin_memory_loop)"\n    wait (threading.py:324)',
  ],
  // Sockets by errno number and name, libfabric, gRPC, TCPStore.
  ['communication', 'connection_lost', 'OSError: [Errno 113] No route to host'],
  ['communication', 'connection_lost', 'socket.send() raised exception: [Errno 32] EPIPE'],
  ['communication', 'connection_lost', 'recv failed: errno=104 (peer gone)'],
  ['communication', 'connection_lost', 'OSError: [Errno 107] Transport endpoint is not connected'],
  ['communication', 'connection_lost', 'NET/OFI Request 0x7f completed with error. RC: -FI_EHOSTUNREACH'],
  [
    'communication',
    'connection_lost',
    '[c10d] Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?',
  ],
  [
    'communication',
    'connection_lost',
    '{"created":"@1.2","description":"Error received from peer","grpc_status":14}',
  ],
  [
    'communication',
    'connection_lost',
    'RuntimeError: NCCL communicator error: ncclRemoteError (see the peer rank)',
  ],
  // The class raised, where no signal knows the message.
  ['communication', 'raised_connection_error', 'ConnectionAbortedError: the peer went away mid-batch'],
  [
    'communication',
    'raised_connection_error',
    'http.client.RemoteDisconnected: Remote end closed connection without response',
  ],
  [
    'communication',
    'raised_connection_error',
    '[rank3]: torch.distributed.DistNetworkError: failed to read from the peer',
  ],
  [
    'distributed_timeout',
    'raised_wait_timeout',
    'torch.distributed.DistStoreError: key rank_7 was never set',
  ],
  ['distributed_timeout', 'raised_wait_timeout', 'TimeoutError'],
  ['distributed_timeout', 'raised_wait_timeout', 'socket.timeout: no answer from the master'],
  [
    'distributed_timeout',
    'raised_wait_timeout',
    'torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed.',
  ],
  [
    'distributed_timeout',
    'raised_wait_timeout',
    'grpc._channel._InactiveRpcError: status = StatusCode.DEADLINE_EXCEEDED',
  ],
  // Store and PMI waits.
  [
    'distributed_timeout',
    'process_group_timeout',
    'RuntimeError: Timeout waiting for key: default_pg/0//cuda//0',
  ],
  ['distributed_timeout', 'process_group_timeout', 'PMIx_Fence timed out after 300 s'],
  [
    'distributed_timeout',
    'process_group_timeout',
    'RuntimeError: Rank 1 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0.',
  ],
  // GPUs lost in other drivers' words.
  ['gpu_xid', 'gpu_lost', 'GPU 00000000:3B:00.0: Detected Critical Xid Error'],
  [
    'gpu_xid',
    'gpu_lost',
    '[ 812.1] amdgpu 0000:c3:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=1042, emitted seq=1044',
  ],
  ['gpu_xid', 'gpu_lost', '[ 812.2] amdgpu 0000:c3:00.0: amdgpu: GPU reset begin!'],
  // Locks a forked child inherits held: logging's and the import system's.
  [
    'deadlock',
    'stack_in_lock',
    'Thread 0x7F (idle): "MainThread"\n    acquire (logging/__init__.py:917)\n    handle (logging/__init__.py:1000)',
  ],
  [
    'deadlock',
    'stack_in_lock',
    'Traceback (most recent call last):\n  File "/usr/lib/python3.10/logging/__init__.py", line 226, in _acquireLock\n    _lock.acquire()\nKeyboardInterrupt',
  ],
  [
    'deadlock',
    'stack_in_lock',
    'Thread 4211 (active): "Worker-1"\n    _lock_unlock_module (<frozen importlib._bootstrap>:416)',
  ],
  [
    'cancelled_preempted',
    'spot_interruption',
    'Warning  Killing  pod/trainer-0  Killing container with id docker://trainer:Need to kill Pod',
  ],
  ['cancelled_preempted', 'spot_interruption', '007 (123.000.000) 06/01 10:00:00 Job was evicted.'],
  // Non-finite RL and optimiser quantities; torch's own exceptions.
  [
    'numerical_instability',
    'metric_not_finite_repeated',
    "{'kl': nan, 'rewards/chosen': 0.1}\n{'kl': nan, 'rewards/chosen': 0.2}",
  ],
  [
    'numerical_instability',
    'metric_not_finite_repeated',
    'step 10 | lr=nan | weight_norm=nan\nstep 11 | lr=nan | weight_norm=nan',
  ],
  [
    'torch',
    'torch_raised',
    'torch._dynamo.exc.Unsupported: call_function BuiltinVariable(open) [ConstantVariable()] {}',
  ],
  ['torch', 'torch_raised', 'torch.AcceleratorError: an uncaught device error was reported'],
  ['torch', 'torch_raised', "RuntimeError: shape '[8, 512, 12, 64]' is invalid for input of size 1572864"],
  [
    'torch',
    'torch_raised',
    'RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn',
  ],
  // Stops in more numberings.
  ['cancelled_preempted', 'sigterm', '    exitcode  : -1 (pid: 4211)'],
  ['cancelled_preempted', 'sigterm', 'Status: Failed\nReason: Shutdown\nMessage: Pod was terminated'],
  ['cancelled_preempted', 'sigint', '    exitcode  : -2 (pid: 4211)'],
  ['cancelled_preempted', 'sigint', 'train.sh: python exited with code 130'],
  ['cancelled_preempted', 'sigterm', '=>> PBS: job killed: walltime 3605 exceeded limit 3600'],
  ['cancelled_preempted', 'sigterm', 'MOAB_INFO:  job exceeded wallclock limit'],
  ['cancelled_preempted', 'sigterm', 'Job deleted at request of admin@sched01'],
  [
    'cancelled_preempted',
    'spot_interruption',
    'Mar 01 10:00:00 vm-7 systemd-logind[812]: Power key pressed.',
  ],
  [
    'cancelled_preempted',
    'spot_interruption',
    'Broadcast message: The system is going down for poweroff NOW!\nSystem is powering down.',
  ],
  // Peers that went away or never resolved.
  ['communication', 'connection_lost', 'An MPI communication peer process has unexpectedly disconnected.'],
  ['communication', 'connection_lost', 'gloo: remote peer closed the connection during recv'],
  ['communication', 'connection_lost', 'ValueError: host not found: Name or service not known'],
  ['communication', 'connection_lost', 'socket.gaierror: [Errno -3] Temporary failure in name resolution'],
  ['communication', 'connection_lost', 'curl: (6) Could not resolve host: master-0.trainer.svc'],
  ['communication', 'connection_lost', 'kex_exchange_identification: Connection closed by remote host'],
  ['communication', 'connection_lost', '[node-3][[1,0],2] mca_oob_tcp: peer closed connection'],
  [
    'communication',
    'raised_connection_error',
    'tensorflow.python.framework.errors_impl.UnavailableError: Socket closed',
  ],
  [
    'communication',
    'raised_connection_error',
    'jaxlib.xla_extension.XlaRuntimeError: UNAVAILABLE: Failed to send RPC to task /job:jax_worker/task:3',
  ],
  [
    'distributed_timeout',
    'raised_wait_timeout',
    'ray.exceptions.GetTimeoutError: Get timed out: some object(s) not ready.',
  ],
  [
    'distributed_timeout',
    'raised_wait_timeout',
    'XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: PjRT_Client_Connect',
  ],
  ['hang', 'progress_not_advancing', 'rank 5 still waiting for the broadcast from rank 0 after 900 s'],
  ['hang', 'progress_not_advancing', 'worker-2 has been blocked for 45 minutes in all_gather'],
  [
    'hang',
    'waiting_repeated',
    Array.from(
      { length: 5 },
      () =>
        'I tensorflow/core/distributed_runtime/master.cc:267] CreateSession still waiting for response from worker: /job:worker/replica:0/task:1',
    ).join('\n'),
  ],
  [
    'cancelled_preempted',
    'sigterm',
    'Status:\n  Conditions:\n    Reason:  DeadlineExceeded\n    Message: Job was active longer than specified deadline',
  ],
  ['cancelled_preempted', 'sigterm', 'scancel: Terminating job 481516'],
  // Exception classes quoted in torchelastic's JSON error report.
  [
    'distributed_timeout',
    'raised_wait_timeout',
    '[ERROR] error_handler: {\n  "message": {\n    "message": "RendezvousConnectionError: The connection to the C10d store has failed.",',
  ],
  // Ctrl-C inside DDP's own collectives is a stall, not a stop, even with the launcher's SIGINT line after it.
  [
    'hang',
    'interrupted_in_collective',
    'Traceback (most recent call last):\n  File "C:\\env\\lib\\site-packages\\torch\\nn\\parallel\\distributed.py", line 1034, in forward\n    self._sync_buffers()\n  File "C:\\env\\lib\\site-packages\\torch\\nn\\parallel\\distributed.py", line 1621, in _sync_buffers\n    self._sync_module_buffers(0)\nKeyboardInterrupt\nWARNING:torch.distributed.elastic.agent.server.api:Received 2 death signal, shutting down workers',
  ],
  // Lock waits in python-gdb and native frames; strace with timestamps; py-spy frames without their header.
  [
    'deadlock',
    'waiting_for_gil',
    '#4 Waiting for a lock (e.g. GIL)\n#7 Frame 0x7f85, for file /usr/lib/python3.8/queue.py, line 118, in put',
  ],
  [
    'deadlock',
    'waiting_for_gil',
    '#0  0x00007f96 in pthread_cond_timedwait@@GLIBC_2.3.2 () from libpthread.so.0\n#1  0x0000558d in PyCOND_TIMEDWAIT ()\n#2  take_gil (tstate=0x558de50f39b0) at Python/ceval_gil.h:208',
  ],
  [
    'hang',
    'live_process_inspected',
    'strace: Process 9268 attached\n11:06:36.426652 futex(0x478f800, FUTEX_WAIT_PRIVATE, 0, NULL',
  ],
  [
    'hang',
    'pyspy_frames',
    '    cudaSetDevice (libcudart.so.12)\n    __enter__ (torch/cuda/__init__.py:550)\n    store (server.py:296)\n    run (concurrent/futures/thread.py:59)',
  ],
  [
    'deadlock',
    'deadlock',
    "terminate called after throwing an instance of 'std::system_error'\n  what():  Resource deadlock would occur",
  ],
];

// A raised CUDA or torch error is a crash: the stacks printed around it, and any watchdog that saw the process stop, are its
// consequences. No stall signal may match; the CUDA error wins.
const CRASHES_WITH_STACKS: readonly string[] = [
  'Thread 0x7F3A (active): "MainThread"\n    forward (model.py:40)\n    wait (threading.py:324)\nRuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!',
  "#0  0x00007f in pthread_cond_wait () from libpthread.so.0\n#1  0x00007f in c10d::ProcessGroupNCCL::workCleanupLoop ()\nterminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: misaligned address",
  'Thread 0x7F3A (active): "MainThread"\n    all_reduce (torch/distributed/distributed_c10d.py:2050)\nRuntimeError: CUDA error: an illegal memory access was encountered',
  'Thread 0x00007f3a (most recent call first):\n  File "x.py", line 3 in wait\ntorch.AcceleratorError: CUDA error: unspecified launch failure',
  '#0  0x00007f in cudaStreamSynchronize () from libcudart.so\n#1  0x00007f in at::native::copy_ ()\nCUDA error: device-side assert triggered',
  '[PG 0 Rank 2] Heartbeat monitor timed out! Process will be terminated.\nRuntimeError: CUDA error: an illegal memory access was encountered',
  'INFO: task python3:40211 blocked for more than 120 seconds.\nCUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx`',
];

const HEALTHY: readonly string[] = [
  'nfs: server fs01.internal OK',
  'echo 0 > /proc/sys/kernel/hung_task_timeout_secs',
  'val loss has not improved for 3 epochs; stopping early',
  'watchdog timeout set to 600 s (will fire if no step completes)',
  'progress watchdog enabled: timeout=1800',
  'Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 (world_size=2, worker_count=1, timeout=0:30:00)',
  'waiting for 3 workers to join\nwaiting for 1 workers to join\nall 4 workers joined',
  ' 0%|          | 0/3125 [00:03<?, ?it/s]',
  ' 3%|▎         | 100/3125 [45:02<15:00:00, 0.04it/s]',
  'timeout: 30',
  'socket_timeout=60, connect_timeout=10',
  'dataset columns: id, text, label, nan_count, timeout_ms',
  'ConnectionError retries: 0',
  '[W socket.cpp:601] [c10d] The client socket has failed to connect to [node-0]:29500 (errno: 111 - Connection refused). Retrying.',
  'NCCL_SOCKET_IFNAME=eth0 NCCL_IB_TIMEOUT=22 NCCL_ASYNC_ERROR_HANDLING=1',
  'exitcode: 0',
  'Reason: Completed',
  'grpc_status: OK (0), retries: 0',
  'task 0: Exited with exit code 0',
  'peer 3 reconnected; retrying the handshake',
  'resolving master-0.trainer.svc ... ok (10.0.0.4)',
  'Power management: GPU power limit 400 W',
  'wallclock limit: 24:00:00 (requested)',
  '  main (train.py:42)',
  'INFO train (train.py:42) loss=0.51\nINFO train (train.py:42) loss=0.50',
  '#4 Frame 0x7f85, for file train.py, line 10, in step',
  'W grpc: UNAVAILABLE: connection to 10.0.0.2 lost; retrying in 1 s',
  'still waiting for the dataset download (about 2 minutes left)',
  'CreateSession still waiting for response from worker: /job:worker/replica:0/task:1',
  'Reason: Completed\nMessage: Job completed before its deadline',
  'heartbeat monitor enabled; the watchdog will abort the process if no heartbeat is detected',
  'amdgpu: ring gfx_0.0.0 uses VM inv eng 0 on hub 0',
  '    Xid Errors: none recorded',
  '  File "/usr/lib/python3.10/logging/__init__.py", line 917, in acquire',
  'cache: 1200 entries evicted (LRU)',
  "{'kl': nan, 'step': 0}\n{'kl': 0.01, 'step': 1}",
  'eval: ppl=inf (loss 12.1, first step)\neval: ppl=inf (loss 11.9)',
  'torch.distributed.elastic.multiprocessing.errors.ChildFailedError reporting disabled',
  'the web UI was unresponsive for a second while loading the dashboard',
];

describe('signals read the layers around a training process (fourth round)', () => {
  itClassifiesEachRow(FAILURES);

  itIsNoStall('a raised CUDA error is no stall', CRASHES_WITH_STACKS, 'torch');

  itStaysHealthy(HEALTHY);
});
