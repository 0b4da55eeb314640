// Stack files as the Python client writes them (protocol v1.2), for tests and the simulated fleet. The
// torch frames carry the paths and functions of torch 2.x (distributed_c10d.py, dataloader.py); the
// standard library's are those of CPython 3.11.
import type { StackFile, StackFrame } from '../../lambdas/core/protocol/stacks.js';

const SITE = '/opt/conda/lib/python3.11/site-packages';
const STD = '/opt/conda/lib/python3.11';
const f = (file: string, line: number, fn: string, code?: string): StackFrame => ({
  file,
  line,
  function: fn,
  ...(code ? { code } : {}),
});

/** The outer frames every training thread shares: the script's main loop. */
const MAIN = [
  f('/opt/train/train.py', 120, '<module>', 'main()'),
  f('/opt/train/train.py', 97, 'main', 'loss = train_step(batch)'),
];

/** Where a stuck training thread can be, as its innermost frames. */
export const WAITS = {
  allReduce: [
    ...MAIN,
    f('/opt/train/train.py', 88, 'train_step', 'dist.all_reduce(loss)'),
    f(`${SITE}/torch/distributed/c10d_logger.py`, 81, 'wrapper', 'return func(*args, **kwargs)'),
    f(`${SITE}/torch/distributed/distributed_c10d.py`, 2806, 'all_reduce', 'work.wait()'),
  ],
  barrier: [
    ...MAIN,
    f('/opt/train/train.py', 91, 'train_step', 'dist.barrier()'),
    f(`${SITE}/torch/distributed/c10d_logger.py`, 81, 'wrapper', 'return func(*args, **kwargs)'),
    f(`${SITE}/torch/distributed/distributed_c10d.py`, 4551, 'barrier', 'work.wait()'),
  ],
  dataLoader: [
    f('/opt/train/train.py', 120, '<module>', 'main()'),
    f('/opt/train/train.py', 95, 'main', 'batch = next(it)'),
    f(`${SITE}/torch/utils/data/dataloader.py`, 701, '__next__', 'data = self._next_data()'),
    f(
      `${SITE}/torch/utils/data/dataloader.py`,
      757,
      '_next_data',
      'data = self._dataset_fetcher.fetch(index)',
    ),
    f(
      `${SITE}/torch/utils/data/_utils/fetch.py`,
      52,
      'fetch',
      'data = [self.dataset[idx] for idx in possibly_batched_index]',
    ),
    f('/opt/train/dataset.py', 41, '__getitem__', 'item = self.queue.get()'),
    f(`${STD}/queue.py`, 171, 'get', 'self.not_empty.wait()'),
    f(`${STD}/threading.py`, 327, 'wait', 'waiter.acquire()'),
  ],
  lock: [...MAIN, f('/opt/train/train.py', 77, 'train_step', 'with self.stats_lock:')],
  lockAcquire: [...MAIN, f('/opt/train/metrics.py', 30, 'log', 'self._lock.acquire()')],
  sleep: [...MAIN, f('/opt/train/train.py', 80, 'train_step', 'time.sleep(backoff)')],
  checkpoint: [
    ...MAIN,
    f('/opt/train/train.py', 104, 'train_step', 'torch.save(state, path)'),
    f(
      `${SITE}/torch/serialization.py`,
      965,
      'save',
      '_save(obj, opened_zipfile, pickle_module, pickle_protocol)',
    ),
    f(`${SITE}/torch/serialization.py`, 1220, '_save', 'zip_file.write_record(name, storage, num_bytes)'),
  ],
  cudaItem: [...MAIN, f('/opt/train/train.py', 86, 'train_step', 'total += loss.item()')],
  synchronize: [
    ...MAIN,
    f('/opt/train/train.py', 84, 'train_step', 'torch.cuda.synchronize()'),
    f(`${SITE}/torch/cuda/__init__.py`, 985, 'synchronize', 'return torch._C._cuda_synchronize()'),
  ],
  forward: [
    ...MAIN,
    f('/opt/train/train.py', 82, 'train_step', 'out = model(batch)'),
    f(
      `${SITE}/torch/nn/modules/module.py`,
      1773,
      '_wrapped_call_impl',
      'return self._call_impl(*args, **kwargs)',
    ),
    f('/opt/train/model.py', 55, 'forward', 'x = block(x)'),
  ],
} as const satisfies Record<string, readonly StackFrame[]>;

export type WaitName = keyof typeof WAITS;

/** Idle threads every process has beside training: the client's writer, a data worker's pin thread. */
const BYSTANDERS = [
  {
    name: 'trainwatch-writer',
    daemon: true,
    frames: [
      f(`${STD}/threading.py`, 995, '_bootstrap', 'self._bootstrap_inner()'),
      f(`${SITE}/trainwatch/_writer.py`, 150, '_run', 'self._cond.wait(timeout)'),
      f(`${STD}/threading.py`, 331, 'wait', 'gotit = waiter.acquire(True, timeout)'),
    ],
  },
];

/** A stack file of node `rank` whose training thread is at `wait`. */
export function stackFile(rank: number, wait: readonly StackFrame[] | WaitName, step = 367): StackFile {
  const frames = typeof wait === 'string' ? WAITS[wait] : wait;
  return {
    node_rank: rank,
    captured_at: '2026-01-02T03:04:05.000Z',
    step,
    stuck_s: 130,
    pid: 4242,
    threads: [{ name: 'MainThread', training: true, daemon: false, frames: [...frames] }, ...BYSTANDERS],
  };
}
