// Where a training thread can be, as Python's traceback shows it, for the simulated fleet of stuck runs
// (bench/stackModel.ts). Written from the sources of torch 2.5, transformers 4.46, accelerate 1.1,
// deepspeed 0.15, lightning 2.4 and CPython 3.10–3.12, independently of the analyzer's own fixtures
// (test/support/stacks.ts): function and file names are the real ones, line numbers are close. A frame is
// a template until a node's install places it (site-packages, the standard library, the user's code).
import type { StackFrame } from '../lambdas/core/protocol/stacks.js';

/** Where a frame's file lives: an installed package, the standard library, or the user's code. */
export type Root = 'lib' | 'std' | 'usr';
/** One frame before a node's install places it. */
export type Tpl = readonly [Root, string, number, string, string?];

const L = (file: string, line: number, fn: string, code?: string): Tpl => ['lib', file, line, fn, code];
const S = (file: string, line: number, fn: string, code?: string): Tpl => ['std', file, line, fn, code];
const U = (file: string, line: number, fn: string, code?: string): Tpl => ['usr', file, line, fn, code];

/** One node's install: where packages, the standard library and the job's code are. */
export interface Env {
  readonly site: string;
  readonly std: string;
  readonly code: string;
  /** Line shift of the standard library's frames (3.10, 3.11 and 3.12 differ). */
  readonly shift: number;
}

export const ENVS: readonly Omit<Env, 'code'>[] = [
  { site: '/opt/conda/lib/python3.11/site-packages', std: '/opt/conda/lib/python3.11', shift: 0 },
  { site: '/usr/local/lib/python3.10/dist-packages', std: '/usr/lib/python3.10', shift: -4 },
  { site: '/home/ubuntu/.venv/lib/python3.12/site-packages', std: '/usr/lib/python3.12', shift: 9 },
  {
    site: '/workspace/.venv/lib/python3.11/site-packages',
    std: '/root/.local/share/uv/python/cpython-3.11.11-linux-x86_64-gnu/lib/python3.11',
    shift: 0,
  },
];
export const CODE_DIRS = ['/opt/train', '/workspace/llm', '/home/ubuntu/repo/src', '/mnt/fsx/jobs/pretrain'];

/** The frames as the client writes them on a node with this install. */
export function place(env: Env, tpls: readonly Tpl[]): StackFrame[] {
  return tpls.map(([root, file, line, fn, code]) => ({
    file: `${root === 'lib' ? env.site : root === 'std' ? env.std : env.code}/${file}`,
    line: root === 'std' ? line + env.shift : line,
    function: fn,
    ...(code ? { code } : {}),
  }));
}

// --- torch ---------------------------------------------------------------------------------------------
const C10D = 'torch/distributed/distributed_c10d.py';
const WRAP = L('torch/distributed/c10d_logger.py', 83, 'wrapper', 'return func(*args, **kwargs)');
const c10d = (fn: string, line: number, code = 'work.wait()') => [WRAP, L(C10D, line, fn, code)];
export const ALL_REDUCE = c10d('all_reduce', 2501);
export const BARRIER = c10d('barrier', 4166);
const ALL_GATHER_T = c10d('all_gather_into_tensor', 3421);
const SEND = c10d('send', 2107, 'group.send([tensor], group_dst_rank, tag).wait()');
const RECV = c10d('recv', 2152, 'pg.recv([tensor], group_src_rank, tag).wait()');
const GATHER_OBJECT = [
  WRAP,
  L(C10D, 2901, 'gather_object', 'all_gather(object_size_list, local_size, group=group)'),
  ...c10d('all_gather', 3385),
];
const CALL = [
  L('torch/nn/modules/module.py', 1736, '_wrapped_call_impl', 'return self._call_impl(*args, **kwargs)'),
  L('torch/nn/modules/module.py', 1747, '_call_impl', 'return forward_call(*args, **kwargs)'),
];
const FSDP = 'torch/distributed/fsdp/';
/** An FSDP unit's forward up to the all_gather of its parameters (the forward's collective). */
const FSDP_UNSHARD = [
  ...CALL,
  L(`${FSDP}fully_sharded_data_parallel.py`, 863, 'forward', 'args, kwargs = _pre_forward('),
  L(`${FSDP}_runtime_utils.py`, 382, '_pre_forward', 'unshard_fn(state, handle)'),
  L(
    `${FSDP}_runtime_utils.py`,
    417,
    '_pre_forward_unshard',
    '_unshard(state, handle, state._unshard_stream, state._pre_unshard_stream)',
  ),
  L(`${FSDP}_runtime_utils.py`, 301, '_unshard', 'handle.unshard()'),
  L(
    `${FSDP}_flat_param.py`,
    1353,
    'unshard',
    'padded_unsharded_flat_param = self._all_gather_flat_param(unsharded_flat_param)',
  ),
  L(`${FSDP}_flat_param.py`, 1444, '_all_gather_flat_param', 'dist.all_gather_into_tensor('),
  ...ALL_GATHER_T,
];
const FSDP_FORWARD = [
  ...CALL,
  L(
    `${FSDP}fully_sharded_data_parallel.py`,
    864,
    'forward',
    'output = self._fsdp_wrapped_module(*args, **kwargs)',
  ),
];
export const BACKWARD = [
  L('torch/_tensor.py', 581, 'backward', 'torch.autograd.backward('),
  L('torch/autograd/__init__.py', 347, 'backward', '_engine_run_backward('),
  L(
    'torch/autograd/graph.py',
    825,
    '_engine_run_backward',
    'return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass',
  ),
];
const SYNCHRONIZE = [L('torch/cuda/__init__.py', 985, 'synchronize', 'return torch._C._cuda_synchronize()')];
const DL = 'torch/utils/data/dataloader.py';
const DL_NEXT = L(DL, 708, '__next__', 'data = self._next_data()');
const QUEUE_GET = [
  S('queue.py', 180, 'get', 'self.not_empty.wait(remaining)'),
  S('threading.py', 359, 'wait', 'gotit = waiter.acquire(True, timeout)'),
];
const MP_GET = [
  S('multiprocessing/queues.py', 113, 'get', 'if not self._poll(timeout):'),
  S('multiprocessing/connection.py', 257, 'poll', 'return self._poll(timeout)'),
  S('multiprocessing/connection.py', 440, '_poll', 'r = wait([self], timeout)'),
  S('multiprocessing/connection.py', 1136, 'wait', 'ready = selector.select(timeout)'),
  S('selectors.py', 415, 'select', 'fd_event_list = self._selector.poll(timeout)'),
];
const SOCKET = [S('socket.py', 720, 'readinto', 'return self._sock.recv_into(b)')];
const WORKERS = [
  L(DL, 1458, '_next_data', 'idx, data = self._get_data()'),
  L(DL, 1420, '_get_data', 'success, data = self._try_get_data()'),
  L(DL, 1251, '_try_get_data', 'data = self._data_queue.get(timeout=timeout)'),
];
const FETCH = L(
  DL,
  764,
  '_next_data',
  'data = self._dataset_fetcher.fetch(index)  # may raise StopIteration',
);

/** The inner frames of a DataLoader that waits for its next batch, by how the job loads data. */
export const LOADING = {
  /** Worker processes, pinned by the pin-memory thread (a queue.Queue). */
  pinned: [DL_NEXT, ...WORKERS, ...QUEUE_GET],
  /** Worker processes, read from their multiprocessing queue. */
  workers: [DL_NEXT, ...WORKERS, ...MP_GET],
  /** `num_workers=0`: the dataset reads in the training thread (an object store, through fsspec). */
  inline: [
    DL_NEXT,
    FETCH,
    L(
      'torch/utils/data/_utils/fetch.py',
      52,
      'fetch',
      'data = [self.dataset[idx] for idx in possibly_batched_index]',
    ),
    U('data.py', 41, '__getitem__', 'raw = self.fs.cat_file(self.paths[idx])'),
    L('fsspec/asyn.py', 118, 'wrapper', 'return sync(self.loop, func, *args, **kwargs)'),
    L('fsspec/asyn.py', 91, 'sync', 'if event.wait(1):'),
    S('threading.py', 629, 'wait', 'signaled = self._cond.wait(timeout)'),
    S('threading.py', 331, 'wait', 'gotit = waiter.acquire(True, timeout)'),
  ],
  /** A streaming IterableDataset (shards over HTTP). */
  streaming: [
    DL_NEXT,
    FETCH,
    L('torch/utils/data/_utils/fetch.py', 33, 'fetch', 'data.append(next(self.dataset_iter))'),
    L('webdataset/pipeline.py', 70, 'iterator1', 'for sample in self.iterator1():'),
    L('webdataset/tariterators.py', 109, 'tar_file_iterator', 'for tarinfo in stream:'),
    S('tarfile.py', 2680, '__next__', 'tarinfo = self.tarfile.next()'),
    S('tarfile.py', 1823, '_read', 'buf = self.fileobj.read(self.bufsize)'),
    L('urllib3/response.py', 1066, 'read', 'data = self._raw_read(amt)'),
    S('http/client.py', 479, 'read', 's = self.fp.read(amt)'),
    ...SOCKET,
  ],
  /** Not a torch DataLoader: the job's own prefetching generator. */
  custom: [
    U('data.py', 130, '__next__', 'return self._ready.get()'),
    S('queue.py', 171, 'get', 'self.not_empty.wait()'),
    S('threading.py', 327, 'wait', 'waiter.acquire()'),
  ],
} as const;
export type Loading = keyof typeof LOADING;

/** A torch.save in progress: writing the storages (most of its time), or closing the archive. */
export const TORCH_SAVE = {
  write: [
    L('torch/serialization.py', 944, 'save', '_save('),
    L('torch/serialization.py', 1216, '_save', 'zip_file.write_record(name, storage, num_bytes)'),
  ],
  close: [
    L('torch/serialization.py', 943, 'save', 'with _open_zipfile_writer(f) as opened_zipfile:'),
    L('torch/serialization.py', 700, '__exit__', 'self.file_like.write_end_of_file()'),
  ],
} as const;
const SAFETENSORS = [
  L(
    'safetensors/torch.py',
    286,
    'save_file',
    'serialize_file(_flatten(tensors), filename, metadata=metadata)',
  ),
];
const DCP = 'torch/distributed/checkpoint/';
const DCP_SAVE = [
  L(`${DCP}logger.py`, 83, 'wrapper', 'result = func(*args, **kwargs)'),
  L(`${DCP}utils.py`, 427, 'inner_func', 'return func(*args, **kwargs)'),
  L(`${DCP}state_dict_saver.py`, 160, 'save', 'return _save_state_dict('),
  L(
    `${DCP}state_dict_saver.py`,
    334,
    '_save_state_dict',
    'return distW.all_reduce("write", write_data, finish_checkpoint)',
  ),
];
/** torch.distributed.checkpoint: a rank writing its shard, or done and gathering the others' results. */
export const DCP_AT = {
  write: [
    ...DCP_SAVE,
    L(`${DCP}utils.py`, 225, 'all_reduce', 'local_data = map_fun()'),
    L(
      `${DCP}state_dict_saver.py`,
      316,
      'write_data',
      'all_writes = storage_writer.write_data(final_local_plan, planner)',
    ),
    L(`${DCP}filesystem.py`, 608, 'write_data', '_write_files_from_queue('),
    L(`${DCP}filesystem.py`, 368, '_write_files_from_queue', '_write_item('),
    L(`${DCP}filesystem.py`, 293, '_write_item', 'torch.save(data, stream)'),
    ...TORCH_SAVE.write,
  ],
  done: [
    ...DCP_SAVE,
    L(`${DCP}utils.py`, 228, 'all_reduce', 'all_data = self.gather_object(local_data)'),
    L(`${DCP}utils.py`, 141, 'gather_object', 'dist.gather_object('),
    ...GATHER_OBJECT,
  ],
} as const;
const DS_COMM = [
  L('deepspeed/comm/comm.py', 117, 'log_wrapper', 'return func(*args, **kwargs)'),
  L('deepspeed/comm/comm.py', 497, 'all_reduce', 'return cdb.all_reduce(tensor, op, group, async_op)'),
  L(
    'deepspeed/comm/torch.py',
    158,
    'all_reduce',
    'return torch.distributed.all_reduce(tensor=tensor, op=op, group=group, async_op=async_op)',
  ),
  ...ALL_REDUCE,
];
/** DeepSpeed's optimizer step up to its gradient-norm all_reduce (ZeRO 1/2). */
const DS_STEP = [
  L('deepspeed/runtime/engine.py', 2213, 'step', 'self._take_model_step(lr_kwargs)'),
  L('deepspeed/runtime/engine.py', 2119, '_take_model_step', 'self.optimizer.step()'),
  L(
    'deepspeed/runtime/zero/stage_1_and_2.py',
    1842,
    'step',
    'scaled_global_grad_norm = self.scaled_global_norm()',
  ),
  L(
    'deepspeed/runtime/zero/stage_1_and_2.py',
    1789,
    'scaled_global_norm',
    'return self.get_grad_norm_direct(norm_groups, self.params_in_partition)',
  ),
  L(
    'deepspeed/runtime/zero/stage_1_and_2.py',
    1655,
    'get_grad_norm_direct',
    'dist.all_reduce(total_norm_cuda, op=dist.ReduceOp.SUM, group=self.dp_process_group)',
  ),
  ...DS_COMM,
];
const DS_SAVE = (done: boolean) => [
  L(
    'deepspeed/runtime/engine.py',
    3150,
    'save_checkpoint',
    done ? 'dist.barrier()' : 'self._save_checkpoint(save_dir, tag, client_state=client_state)',
  ),
  ...(done
    ? [
        L('deepspeed/comm/comm.py', 117, 'log_wrapper', 'return func(*args, **kwargs)'),
        L(
          'deepspeed/comm/comm.py',
          412,
          'barrier',
          'return cdb.barrier(group=group, async_op=async_op, device_ids=device_ids)',
        ),
        L(
          'deepspeed/comm/torch.py',
          409,
          'barrier',
          'return torch.distributed.barrier(group=group, async_op=async_op, device_ids=device_ids)',
        ),
        ...BARRIER,
      ]
    : [
        L(
          'deepspeed/runtime/engine.py',
          3360,
          '_save_checkpoint',
          'self.checkpoint_engine.save(state, save_path)',
        ),
        L(
          'deepspeed/runtime/checkpoint_engine/torch_checkpoint_engine.py',
          22,
          'save',
          'torch.save(state_dict, path)',
        ),
        ...TORCH_SAVE.write,
      ]),
];

// --- the user's model: a transformer whose forward is deep; a running thread is anywhere in it ---------
const MODEL = [
  U('model.py', 212, 'forward', 'x = block(x, mask)'),
  U('model.py', 131, 'forward', 'h = h + self.attn(self.ln1(h), mask)'),
  U('model.py', 88, 'forward', 'y = F.scaled_dot_product_attention(q, k, v, is_causal=True)'),
];
const MLP = U('model.py', 132, 'forward', 'return h + self.mlp(self.ln2(h))');
/** A forward running inside the user's model, `depth` modules down (FSDP units wrap each block). */
export function running(depth: number, fsdp: boolean, mlp: boolean): Tpl[] {
  const out: Tpl[] = [...(fsdp ? FSDP_FORWARD : CALL)];
  for (let i = 0; i <= Math.min(depth, MODEL.length - 1); i++) {
    out.push(i === 1 && mlp ? MLP : MODEL[i]!);
    if (i < Math.min(depth, MODEL.length - 1)) out.push(...(i === 0 && fsdp ? FSDP_FORWARD : CALL));
  }
  if (depth >= MODEL.length)
    out.push(L('torch/nn/functional.py', 2929, 'layer_norm', 'return torch.layer_norm('));
  return out;
}
/** An FSDP forward stuck in the all_gather of the root unit, or of the first block's. */
export const fsdpGather = (block: boolean): Tpl[] =>
  block ? [...FSDP_FORWARD, MODEL[0]!, ...FSDP_UNSHARD] : FSDP_UNSHARD;

export { CALL, DCP_SAVE, DS_SAVE, DS_STEP, L, MODEL, RECV, S, SAFETENSORS, SEND, SYNCHRONIZE, U };

// --- threads beside the training thread: idle, and ignored by the analyzer, but in every real file ------
const BOOT = [
  S('threading.py', 1002, '_bootstrap', 'self._bootstrap_inner()'),
  S('threading.py', 1045, '_bootstrap_inner', 'self.run()'),
  S('threading.py', 982, 'run', 'self._target(*self._args, **self._kwargs)'),
];
const EVENT_WAIT = [
  S('threading.py', 629, 'wait', 'signaled = self._cond.wait(timeout)'),
  S('threading.py', 331, 'wait', 'gotit = waiter.acquire(True, timeout)'),
];
/** Threads other than the training one, by name; the client lists them after it. */
export const BYSTANDERS = {
  writer: [
    ...BOOT,
    L('trainwatch/run.py', 318, '_loop', 'wait = self._beat(time.monotonic())'),
    L('trainwatch/run.py', 310, '_beat', 'wait = min(wait, self._stacks.poll(now))'),
    L('trainwatch/_stacks.py', 268, 'poll', 'return self._capture(now, token, since, step)'),
    L(
      'trainwatch/_stacks.py',
      287,
      '_capture',
      'body = capture(self._node.node_rank, self.thread, step, now - since)',
    ),
    L('trainwatch/_stacks.py', 121, 'capture', 'frames, dropped = _frames(current[ident])'),
  ],
  pin: [
    ...BOOT,
    L('torch/utils/data/_utils/pin_memory.py', 59, '_pin_memory_loop', 'do_one_step()'),
    L(
      'torch/utils/data/_utils/pin_memory.py',
      35,
      'do_one_step',
      'r = in_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)',
    ),
    ...MP_GET,
  ],
  wandbRouter: [
    ...BOOT,
    L('wandb/sdk/interface/router.py', 70, 'message_loop', 'msg = self._read_message()'),
    L(
      'wandb/sdk/interface/router_sock.py',
      27,
      '_read_message',
      'resp = self._sock_client.read_server_response(timeout=1)',
    ),
    L(
      'wandb/sdk/lib/sock_client.py',
      283,
      'read_server_response',
      'data = self._read_packet_bytes(timeout=timeout)',
    ),
    L('wandb/sdk/lib/sock_client.py', 257, '_read_packet_bytes', 'data = self._sock.recv(self._bufsize)'),
  ],
  wandbCheck: [
    ...BOOT,
    L('wandb/sdk/wandb_run.py', 286, 'check_stop_status', 'if self._join_event.wait(timeout):'),
    ...EVENT_WAIT,
  ],
  tensorboard: [
    ...BOOT.slice(0, 2),
    L(
      'tensorboard/summary/writer/event_file_writer.py',
      244,
      'run',
      'data = self._queue.get(True, queue_wait_duration)',
    ),
    ...QUEUE_GET,
  ],
  executor: [
    ...BOOT,
    S('concurrent/futures/thread.py', 81, '_worker', 'work_item = work_queue.get(block=True)'),
  ],
  monitor: [...BOOT.slice(0, 2), U('monitor.py', 22, 'run', 'time.sleep(self.every)')],
} as const;
