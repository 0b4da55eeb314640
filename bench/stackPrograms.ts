// The programs of the simulated fleet of stuck runs (bench/stackModel.ts): a job's own training loop, a
// transformers Trainer and a Lightning Trainer, each with its way of being parallel and of checkpointing,
// and the frames its training thread shows at each point it can be stuck at (bench/stackFrames.ts).
import {
  ALL_REDUCE,
  BACKWARD,
  BARRIER,
  BYSTANDERS,
  CALL,
  DCP_AT,
  DS_SAVE,
  DS_STEP,
  type Env,
  fsdpGather,
  L,
  LOADING,
  type Loading,
  place,
  RECV,
  running,
  S,
  SAFETENSORS,
  SEND,
  SYNCHRONIZE,
  TORCH_SAVE,
  type Tpl,
  U,
} from './stackFrames.js';

export type Framework = 'loop' | 'hf' | 'lightning';
export type Layout = 'explicit' | 'fsdp' | 'deepspeed' | 'pipeline' | 'ddp';

/** The job every node runs (one script, one framework, one way to be parallel and to checkpoint). */
export interface Program {
  readonly framework: Framework;
  readonly layout: Layout;
  readonly loading: Loading;
  /** DDP: where a node that waits for a peer blocks (gloo: in backward; NCCL: the next .item()/synchronize). */
  readonly ddpWait: 'backward' | 'item' | 'synchronize';
  readonly save: 'torch' | 'safetensors' | 'dcp' | 'deepspeed';
  /** Every rank writes its shard (else rank 0 saves alone while the others go on to the next step). */
  readonly everyRankSaves: boolean;
  /** A loop's dist.barrier() after a save: the last line of its save_checkpoint(), the loop's next, or none. */
  readonly barrier: 'inside' | 'after' | 'none';
  readonly fsdpBlock: boolean;
  readonly stages: number;
}

/** Where one node's training thread is. */
export type Point =
  | { readonly at: 'batch' }
  | { readonly at: 'lock' | 'cuda'; readonly v: number }
  | { readonly at: 'slow'; readonly backward: boolean; readonly depth: number; readonly mlp: boolean }
  | { readonly at: 'save'; readonly sub: 'write' | 'close' | 'fsync' }
  | { readonly at: 'saved' }
  | { readonly at: 'peer'; readonly stage: 'before' | 'after' | 'same' }
  | { readonly at: 'eval'; readonly v: number; readonly depth: number; readonly mlp: boolean };

const TRAIN = (line: number, code: string) => U('train.py', line, 'train', code);
const CKPT_CALL = TRAIN(158, 'save_checkpoint(model, opt, step, cfg.ckpt_dir)');
const PRINT_ITEM = 'if step % cfg.log_every == 0: print(f"step {step} loss {loss.item():.4f}")';

/** The job's own save_checkpoint(): where in it a node is. */
function userSave(p: Program, point: Point): Tpl[] {
  if (point.at === 'saved')
    return p.barrier === 'inside'
      ? [CKPT_CALL, U('ckpt.py', 29, 'save_checkpoint', 'dist.barrier()'), ...BARRIER]
      : [TRAIN(159, 'dist.barrier()'), ...BARRIER];
  const sub = point.at === 'save' ? point.sub : 'write';
  if (sub === 'fsync') return [CKPT_CALL, U('ckpt.py', 27, 'save_checkpoint', 'os.fsync(f.fileno())')];
  if (p.save === 'dcp')
    return [
      CKPT_CALL,
      U('ckpt.py', 31, 'save_checkpoint', 'dcp.save(state, checkpoint_id=path)'),
      ...DCP_AT.write,
    ];
  if (p.save === 'safetensors')
    return [
      CKPT_CALL,
      U('ckpt.py', 24, 'save_checkpoint', 'save_file(model.state_dict(), tmp)'),
      ...SAFETENSORS,
    ];
  return [CKPT_CALL, U('ckpt.py', 24, 'save_checkpoint', 'torch.save(state, f)'), ...TORCH_SAVE[sub]];
}

/** A training loop of the job's own (torchrun + train.py). */
function loop(p: Program, point: Point): Tpl[] {
  const ds = p.layout === 'deepspeed';
  const fsdp = p.layout === 'fsdp';
  const lines: Record<Point['at'], () => Tpl[]> = {
    batch: () =>
      p.loading === 'custom'
        ? [TRAIN(141, 'batch = next(batches)'), ...LOADING.custom]
        : [TRAIN(141, 'for step, batch in enumerate(loader, start=start_step):'), ...LOADING[p.loading]],
    lock: () => {
      const v = (point as { v: number }).v;
      if (v < 0.35)
        return [TRAIN(150, 'metrics.update(step, loss)'), U('metrics.py', 31, 'update', 'with self._lock:')];
      if (v < 0.55)
        return [
          TRAIN(150, 'metrics.update(step, loss)'),
          U('metrics.py', 44, 'update', 'self._lock.acquire()'),
        ];
      if (v < 0.7)
        return [
          TRAIN(156, 'uploader.join()'),
          S('threading.py', 1119, 'join', 'self._wait_for_tstate_lock()'),
          S('threading.py', 1139, '_wait_for_tstate_lock', 'if lock.acquire(block, timeout):'),
        ];
      if (v < 0.85)
        return [
          TRAIN(139, 'resume_event.wait()'),
          S('threading.py', 629, 'wait', 'signaled = self._cond.wait(timeout)'),
          S('threading.py', 327, 'wait', 'waiter.acquire()'),
        ];
      // A logging handler's lock, held by a thread that died holding it: the wait is inside logging.
      return [
        TRAIN(152, 'log.info("step %d loss %.4f", step, loss_val)'),
        S('logging/__init__.py', 1489, 'info', 'self._log(INFO, msg, args, **kwargs)'),
        S('logging/__init__.py', 1634, '_log', 'self.handle(record)'),
        S('logging/__init__.py', 1644, 'handle', 'self.callHandlers(record)'),
        S('logging/__init__.py', 1706, 'callHandlers', 'hdlr.handle(record)'),
        S('logging/__init__.py', 976, 'handle', 'self.acquire()'),
        S('logging/__init__.py', 927, 'acquire', 'self.lock.acquire()'),
      ];
    },
    cuda: () => {
      const v = (point as { v: number }).v;
      if (v < 0.3) return [TRAIN(151, 'loss_log = loss.detach().float().cpu()')];
      if (v < 0.6) return [TRAIN(149, PRINT_ITEM)];
      if (v < 0.75) return [TRAIN(145, 'torch.cuda.synchronize()'), ...SYNCHRONIZE];
      if (v < 0.9) return [TRAIN(148, 'grad_norm = clip_grad_norm_(model.parameters(), cfg.clip).item()')];
      // An f-string of a tensor: the .item() is torch's, not the user's.
      return [
        TRAIN(149, 'print(f"step {step} loss {loss:.4f}")'),
        L('torch/_tensor.py', 1085, '__format__', 'return self.item().__format__(format_spec)'),
      ];
    },
    slow: () => {
      const s = point as Extract<Point, { at: 'slow' }>;
      if (!s.backward)
        return [
          TRAIN(146, ds ? 'loss = model_engine(**batch).loss' : 'loss = model(**batch).loss'),
          ...running(s.depth, fsdp, s.mlp),
        ];
      return ds
        ? [
            TRAIN(147, 'model_engine.backward(loss)'),
            L(
              'deepspeed/runtime/engine.py',
              2020,
              'backward',
              'self.optimizer.backward(loss, retain_graph=retain_graph)',
            ),
            L(
              'deepspeed/runtime/zero/stage_1_and_2.py',
              2050,
              'backward',
              'self.loss_scaler.backward(loss.float(), retain_graph=retain_graph)',
            ),
            L(
              'deepspeed/runtime/fp16/loss_scaler.py',
              63,
              'backward',
              'scaled_loss.backward(retain_graph=retain_graph)',
            ),
            ...BACKWARD,
          ]
        : [TRAIN(147, 'loss.backward()'), ...BACKWARD];
    },
    save: () =>
      p.save === 'deepspeed'
        ? [TRAIN(158, 'model_engine.save_checkpoint(cfg.ckpt_dir, tag=f"step{step}")'), ...DS_SAVE(false)]
        : userSave(p, point),
    saved: () =>
      p.save === 'deepspeed'
        ? [TRAIN(158, 'model_engine.save_checkpoint(cfg.ckpt_dir, tag=f"step{step}")'), ...DS_SAVE(true)]
        : p.save === 'dcp'
          ? [
              CKPT_CALL,
              U('ckpt.py', 31, 'save_checkpoint', 'dcp.save(state, checkpoint_id=path)'),
              ...DCP_AT.done,
            ]
          : userSave(p, point),
    peer: () => {
      const stage = (point as Extract<Point, { at: 'peer' }>).stage;
      switch (p.layout) {
        case 'fsdp':
          return [TRAIN(146, 'loss = model(**batch).loss'), ...fsdpGather(p.fsdpBlock)];
        case 'deepspeed':
          return [TRAIN(148, 'model_engine.step()'), ...DS_STEP];
        case 'pipeline': {
          const step = TRAIN(144, 'loss = pipe.train_step(batch)');
          if (stage === 'after')
            return [
              step,
              U('pipe.py', 188, 'train_step', 'x = self._recv(self.prev_rank, shape)'),
              U('pipe.py', 61, '_recv', 'dist.recv(buf, src=src)'),
              ...RECV,
            ];
          if (stage === 'before')
            return [
              step,
              U('pipe.py', 196, 'train_step', 'self._send(y, self.next_rank)'),
              U('pipe.py', 55, '_send', 'dist.send(t, dst=dst)'),
              ...SEND,
            ];
          return [
            step,
            U('pipe.py', 233, 'train_step', 'self._sync_grads()'),
            U('pipe.py', 301, '_sync_grads', 'dist.all_reduce(flat, group=self.dp_group)'),
            ...ALL_REDUCE,
          ];
        }
        case 'ddp':
          if (p.ddpWait === 'backward') return [TRAIN(147, 'loss.backward()'), ...BACKWARD];
          if (p.ddpWait === 'synchronize') return [TRAIN(145, 'torch.cuda.synchronize()'), ...SYNCHRONIZE];
          return [TRAIN(149, PRINT_ITEM)];
        default:
          return [TRAIN(153, 'dist.all_reduce(loss_log, op=dist.ReduceOp.AVG)'), ...ALL_REDUCE];
      }
    },
    eval: () => {
      const e = point as Extract<Point, { at: 'eval' }>;
      const call = TRAIN(162, 'val_loss = evaluate(model, val_loader)');
      const ev = (line: number, code: string) => U('train.py', line, 'evaluate', code);
      if (e.v < 0.3)
        return [
          call,
          ev(101, 'for batch in loader:'),
          ...LOADING[p.loading === 'custom' ? 'pinned' : p.loading],
        ];
      if (e.v < 0.75) return [call, ev(102, 'out = model(**batch)'), ...running(e.depth, fsdp, e.mlp)];
      if (e.v < 0.9) return [call, ev(103, 'total += out.loss.item()')];
      return [call, ev(105, 'dist.all_reduce(total)'), ...ALL_REDUCE];
    },
  };
  return [
    U('train.py', 231, '<module>', 'main(parse_args())'),
    U('train.py', 214, 'main', 'train(cfg, model, loader, opt)'),
    ...lines[point.at](),
  ];
}

const TR = 'transformers/trainer.py';
const LOOP = (line: number, code: string) => L(TR, line, '_inner_training_loop', code);
const TRAINING_STEP = LOOP(2534, 'tr_loss_step = self.training_step(model, inputs, num_items_in_batch)');
const CALLBACK = [
  LOOP(2560, 'self.control = self.callback_handler.on_step_end(args, self.state, self.control)'),
  L(
    'transformers/trainer_callback.py',
    507,
    'on_step_end',
    'return self.call_event("on_step_end", args, state, control)',
  ),
  L('transformers/trainer_callback.py', 557, 'call_event', 'result = getattr(callback, event)('),
];
const SAVE_HOOK = [
  LOOP(2591, 'self._maybe_log_save_evaluate('),
  L(TR, 3050, '_maybe_log_save_evaluate', 'self._save_checkpoint(model, trial)'),
];
const LLAMA = (fsdp: boolean, depth: number) => [
  L(
    TR,
    3704,
    'training_step',
    'loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)',
  ),
  L(TR, 3767, 'compute_loss', 'outputs = model(**inputs)'),
  ...CALL,
  L('transformers/models/llama/modeling_llama.py', 1190, 'forward', 'outputs = self.model('),
  ...(depth > 0
    ? [
        ...CALL,
        L('transformers/models/llama/modeling_llama.py', 945, 'forward', 'layer_outputs = decoder_layer('),
        ...(fsdp ? running(0, true, false).slice(0, 3) : CALL),
        L(
          'transformers/models/llama/modeling_llama.py',
          692,
          'forward',
          'hidden_states, self_attn_weights, present_key_value = self.self_attn(',
        ),
      ]
    : []),
];

/** A transformers Trainer (FSDP or DeepSpeed through accelerate; DDP in the sync fleet). */
function hf(p: Program, point: Point): Tpl[] {
  const fsdp = p.layout === 'fsdp';
  const inner = (): Tpl[] => {
    switch (point.at) {
      case 'batch':
        return [
          LOOP(
            2486,
            'batch_samples, num_items_in_batch = self.get_batch_samples(epoch_iterator, num_batches)',
          ),
          L(TR, 5153, 'get_batch_samples', 'batch_samples += [next(epoch_iterator)]'),
          L('accelerate/data_loader.py', 552, '__iter__', 'next_batch = next(dataloader_iter)'),
          ...LOADING[p.loading === 'custom' ? 'pinned' : p.loading],
        ];
      case 'lock':
        return [
          ...CALLBACK,
          U('callbacks.py', 40, 'on_step_end', point.v < 0.5 ? 'with self._lock:' : 'self._lock.acquire()'),
        ];
      case 'cuda':
        // The Trainer's own NaN check syncs first; a callback's .item() when it logs every step.
        return point.v < 0.6
          ? [LOOP(2540, 'and (torch.isnan(tr_loss_step) or torch.isinf(tr_loss_step))')]
          : [
              ...CALLBACK,
              U('callbacks.py', 52, 'on_step_end', 'self.norms.append(model.lm_head.weight.norm().item())'),
            ];
      case 'slow':
        return point.backward
          ? [TRAINING_STEP, ...hfBackward(p)]
          : [TRAINING_STEP, ...LLAMA(fsdp, point.depth)];
      case 'save':
      case 'saved': {
        const done = point.at === 'saved';
        if (p.save === 'deepspeed')
          return [
            ...SAVE_HOOK,
            L(TR, 3127, '_save_checkpoint', 'self.model_wrapped.save_checkpoint(output_dir)'),
            ...DS_SAVE(done),
          ];
        if (p.save === 'dcp')
          return [
            ...SAVE_HOOK,
            L(TR, 3127, '_save_checkpoint', 'self.save_model(output_dir, _internal_call=True)'),
            L(
              TR,
              3790,
              'save_model',
              'save_fsdp_model(self.accelerator.state.fsdp_plugin, self.accelerator, self.model, output_dir)',
            ),
            L(
              'accelerate/utils/fsdp_utils.py',
              107,
              'save_fsdp_model',
              'dist_cp.save(state_dict=state_dict, storage_writer=dist_cp.FileSystemWriter(ckpt_dir))',
            ),
            ...(done ? DCP_AT.done : DCP_AT.write),
          ];
        return done
          ? [
              ...SAVE_HOOK,
              L(TR, 3127, '_save_checkpoint', 'self.save_model(output_dir, _internal_call=True)'),
              L(TR, 3835, 'save_model', 'self.accelerator.wait_for_everyone()'),
              L('accelerate/accelerator.py', 2801, 'wait_for_everyone', 'wait_for_everyone()'),
              L('accelerate/state.py', 392, 'wait_for_everyone', 'torch.distributed.barrier()'),
              ...BARRIER,
            ]
          : [
              ...SAVE_HOOK,
              L(TR, 3127, '_save_checkpoint', 'self.save_model(output_dir, _internal_call=True)'),
              L(TR, 3810, 'save_model', 'self._save(output_dir, state_dict=state_dict)'),
              L(TR, 3928, '_save', 'self.model.save_pretrained('),
              L(
                'transformers/modeling_utils.py',
                3034,
                'save_pretrained',
                'safe_save_file(shard, os.path.join(save_directory, shard_file), metadata={"format": "pt"})',
              ),
              ...SAFETENSORS,
            ];
      }
      case 'peer':
        if (p.layout === 'fsdp') return [TRAINING_STEP, ...LLAMA(true, 0).slice(0, 2), ...fsdpGather(false)];
        if (p.layout === 'deepspeed')
          return [
            TRAINING_STEP,
            L(TR, 3740, 'training_step', 'self.accelerator.backward(loss, **kwargs)'),
            L(
              'accelerate/accelerator.py',
              2238,
              'backward',
              'self.deepspeed_engine_wrapped.backward(loss, **kwargs)',
            ),
            L('accelerate/utils/deepspeed.py', 175, 'backward', 'self.engine.step()'),
            ...DS_STEP,
          ];
        return p.ddpWait === 'backward'
          ? [TRAINING_STEP, ...hfBackward(p)]
          : [LOOP(2540, 'and (torch.isnan(tr_loss_step) or torch.isinf(tr_loss_step))')];
      case 'eval': {
        const head = [
          LOOP(2591, 'self._maybe_log_save_evaluate('),
          L(TR, 3040, '_maybe_log_save_evaluate', 'metrics = self._evaluate(trial, ignore_keys_for_eval)'),
          L(TR, 3001, '_evaluate', 'metrics = self.evaluate(ignore_keys=ignore_keys_for_eval)'),
          L(TR, 4052, 'evaluate', 'output = eval_loop('),
        ];
        const ev = (code: string) => L(TR, 4231, 'evaluation_loop', code);
        if (point.v < 0.3)
          return [
            ...head,
            ev('for step, inputs in enumerate(dataloader):'),
            ...LOADING[p.loading === 'custom' ? 'pinned' : p.loading],
          ];
        if (point.v < 0.75)
          return [
            ...head,
            ev(
              'losses, logits, labels = self.prediction_step(model, inputs, prediction_loss_only, ignore_keys=ignore_keys)',
            ),
            L(
              TR,
              4487,
              'prediction_step',
              'loss, outputs = self.compute_loss(model, inputs, return_outputs=True)',
            ),
            ...LLAMA(fsdp, point.depth).slice(1),
          ];
        if (point.v < 0.9)
          return [
            ...head,
            ev('logits = self.preprocess_logits_for_metrics(logits, labels)'),
            U('train.py', 40, 'preprocess_logits_for_metrics', 'return logits.argmax(dim=-1).cpu()'),
          ];
        return [
          ...head,
          ev('losses = self.gather_function((losses.repeat(batch_size)))'),
          L('accelerate/accelerator.py', 2450, 'gather_for_metrics', 'data = self.gather(input_data)'),
          L('accelerate/utils/operations.py', 385, 'gather', 'return _gpu_gather(tensor)'),
          L('accelerate/utils/operations.py', 368, '_gpu_gather_one', 'gather_op(output_tensors, tensor)'),
          ...fsdpGather(false).slice(-2),
        ];
      }
    }
  };
  return [
    U('train.py', 96, '<module>', 'main()'),
    U('train.py', 88, 'main', 'trainer.train(resume_from_checkpoint=args.resume)'),
    L(TR, 2241, 'train', 'return inner_training_loop('),
    ...inner(),
  ];
}

function hfBackward(p: Program): Tpl[] {
  return [
    L(TR, 3740, 'training_step', 'self.accelerator.backward(loss, **kwargs)'),
    ...(p.layout === 'deepspeed'
      ? [
          L(
            'accelerate/accelerator.py',
            2238,
            'backward',
            'self.deepspeed_engine_wrapped.backward(loss, **kwargs)',
          ),
          L('accelerate/utils/deepspeed.py', 166, 'backward', 'self.engine.backward(loss, **kwargs)'),
          L(
            'deepspeed/runtime/engine.py',
            2020,
            'backward',
            'self.optimizer.backward(loss, retain_graph=retain_graph)',
          ),
          L(
            'deepspeed/runtime/fp16/loss_scaler.py',
            63,
            'backward',
            'scaled_loss.backward(retain_graph=retain_graph)',
          ),
        ]
      : [L('accelerate/accelerator.py', 2246, 'backward', 'loss.backward(**kwargs)')]),
    ...BACKWARD,
  ];
}

const PL = 'lightning/pytorch/';
/** Lightning's frames from the script to the epoch loop (deep: with the step's, past the client's 40). */
const PL_OUTER = [
  U('train.py', 64, '<module>', 'main()'),
  U('train.py', 58, 'main', 'trainer.fit(model, datamodule=dm, ckpt_path="last")'),
  L(`${PL}trainer/trainer.py`, 539, 'fit', 'call._call_and_handle_interrupt('),
  L(
    `${PL}trainer/call.py`,
    46,
    '_call_and_handle_interrupt',
    'return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)',
  ),
  L(`${PL}strategies/launchers/subprocess_script.py`, 105, 'launch', 'return function(*args, **kwargs)'),
  L(`${PL}trainer/trainer.py`, 575, '_fit_impl', 'self._run(model, ckpt_path=ckpt_path)'),
  L(`${PL}trainer/trainer.py`, 982, '_run', 'results = self._run_stage()'),
  L(`${PL}trainer/trainer.py`, 1026, '_run_stage', 'self.fit_loop.run()'),
  L(`${PL}loops/fit_loop.py`, 216, 'run', 'self.advance()'),
  L(`${PL}loops/fit_loop.py`, 455, 'advance', 'self.epoch_loop.run(self._data_fetcher)'),
  L(`${PL}loops/training_epoch_loop.py`, 150, 'run', 'self.advance(data_fetcher)'),
];
const EPOCH = (line: number, code: string) => L(`${PL}loops/training_epoch_loop.py`, line, 'advance', code);
const PL_CLOSURE = [
  EPOCH(250, 'batch_output = self.automatic_optimization.run(trainer.optimizers[0], batch_idx, kwargs)'),
  L(`${PL}loops/optimization/automatic.py`, 190, 'run', 'self._optimizer_step(batch_idx, closure)'),
  L(`${PL}loops/optimization/automatic.py`, 268, '_optimizer_step', 'call._call_lightning_module_hook('),
  L(`${PL}trainer/call.py`, 167, '_call_lightning_module_hook', 'output = fn(*args, **kwargs)'),
  L(`${PL}core/module.py`, 1306, 'optimizer_step', 'optimizer.step(closure=optimizer_closure)'),
  L(
    `${PL}core/optimizer.py`,
    153,
    'step',
    'step_output = self._strategy.optimizer_step(self._optimizer, closure, **kwargs)',
  ),
  L(
    `${PL}strategies/strategy.py`,
    238,
    'optimizer_step',
    'return self.precision_plugin.optimizer_step(optimizer, model=model, closure=closure, **kwargs)',
  ),
  L(
    `${PL}plugins/precision/precision.py`,
    122,
    'optimizer_step',
    'return optimizer.step(closure=closure, **kwargs)',
  ),
  L('torch/optim/optimizer.py', 487, 'wrapper', 'out = func(*args, **kwargs)'),
  L('torch/optim/adamw.py', 197, 'step', 'loss = closure()'),
  L(`${PL}plugins/precision/precision.py`, 108, '_wrap_closure', 'closure_result = closure()'),
  L(`${PL}loops/optimization/automatic.py`, 144, '__call__', 'self._result = self.closure(*args, **kwargs)'),
];
const PL_STEP = [
  ...PL_CLOSURE,
  L(`${PL}loops/optimization/automatic.py`, 129, 'closure', 'step_output = self._step_fn()'),
  L(
    `${PL}loops/optimization/automatic.py`,
    317,
    '_training_step',
    'training_step_output = call._call_strategy_hook(trainer, "training_step", *kwargs.values())',
  ),
  L(`${PL}trainer/call.py`, 319, '_call_strategy_hook', 'output = fn(*args, **kwargs)'),
  L(
    `${PL}strategies/strategy.py`,
    390,
    'training_step',
    'return self.lightning_module.training_step(*args, **kwargs)',
  ),
];
const PL_BACKWARD = [
  ...PL_CLOSURE,
  L(`${PL}loops/optimization/automatic.py`, 138, 'closure', 'self._backward_fn(step_output.closure_loss)'),
  L(
    `${PL}loops/optimization/automatic.py`,
    233,
    'backward_fn',
    'call._call_strategy_hook(self.trainer, "backward", loss, optimizer)',
  ),
  L(`${PL}trainer/call.py`, 319, '_call_strategy_hook', 'output = fn(*args, **kwargs)'),
  L(
    `${PL}strategies/strategy.py`,
    212,
    'backward',
    'self.precision_plugin.backward(closure_loss, self.lightning_module, optimizer, *args, **kwargs)',
  ),
  L(`${PL}plugins/precision/precision.py`, 72, 'backward', 'model.backward(tensor, *args, **kwargs)'),
  L(`${PL}core/module.py`, 1101, 'backward', 'loss.backward(*args, **kwargs)'),
  ...BACKWARD,
];
const PL_FETCH = [
  L(`${PL}loops/fetchers.py`, 134, '__next__', 'batch = super().__next__()'),
  L(`${PL}loops/fetchers.py`, 61, '__next__', 'batch = next(self.iterator)'),
  L(`${PL}utilities/combined_loader.py`, 341, '__next__', 'out = next(self._iterator)'),
  L(`${PL}utilities/combined_loader.py`, 78, '__next__', 'out[i] = next(self.iterators[i])'),
];
const PL_SAVE = [
  EPOCH(291, 'call._call_callback_hooks(trainer, "on_train_batch_end", batch_output, batch, batch_idx)'),
  L(
    `${PL}trainer/call.py`,
    218,
    '_call_callback_hooks',
    'fn(trainer, trainer.lightning_module, *args, **kwargs)',
  ),
  L(
    `${PL}callbacks/model_checkpoint.py`,
    316,
    'on_train_batch_end',
    'self._save_topk_checkpoint(trainer, monitor_candidates)',
  ),
  L(
    `${PL}callbacks/model_checkpoint.py`,
    384,
    '_save_topk_checkpoint',
    'self._save_none_monitor_checkpoint(trainer, monitor_candidates)',
  ),
  L(
    `${PL}callbacks/model_checkpoint.py`,
    705,
    '_save_none_monitor_checkpoint',
    'self._save_checkpoint(trainer, filepath)',
  ),
  L(
    `${PL}callbacks/model_checkpoint.py`,
    390,
    '_save_checkpoint',
    'trainer.save_checkpoint(filepath, self.save_weights_only)',
  ),
];

/** A LightningModule under Trainer.fit (FSDP; DDP in the sync fleet). */
function lightning(p: Program, point: Point): Tpl[] {
  const fsdp = p.layout === 'fsdp';
  const step = (line: number, code: string) => U('model.py', line, 'training_step', code);
  const inner = (): Tpl[] => {
    switch (point.at) {
      case 'batch':
        return [
          EPOCH(282, 'batch, _, __ = next(data_fetcher)'),
          ...PL_FETCH,
          ...LOADING[p.loading === 'custom' ? 'pinned' : p.loading],
        ];
      case 'lock':
        return [
          ...PL_STEP,
          step(74, 'self.tracker.update(loss)'),
          U('tracker.py', 18, 'update', 'with self._lock:'),
        ];
      case 'cuda':
        return [...PL_STEP, step(73, 'self.log("train/loss", loss.item(), prog_bar=True)')];
      case 'slow':
        return point.backward
          ? PL_BACKWARD
          : [...PL_STEP, step(71, 'loss = self(batch)'), ...running(point.depth, fsdp, point.mlp)];
      case 'save':
      case 'saved': {
        const done = point.at === 'saved';
        const head = [
          ...PL_SAVE,
          L(
            `${PL}trainer/trainer.py`,
            done ? 1366 : 1365,
            'save_checkpoint',
            done
              ? 'self.strategy.barrier("Trainer.save_checkpoint")'
              : 'self.strategy.save_checkpoint(checkpoint, filepath, storage_options=storage_options)',
          ),
        ];
        if (fsdp)
          return [
            ...PL_SAVE,
            L(
              `${PL}trainer/trainer.py`,
              1365,
              'save_checkpoint',
              'self.strategy.save_checkpoint(checkpoint, filepath, storage_options=storage_options)',
            ),
            L(
              `${PL}strategies/fsdp.py`,
              585,
              'save_checkpoint',
              '_distributed_checkpoint_save(converted_state, path)',
            ),
            L(
              'lightning/fabric/strategies/fsdp.py',
              884,
              '_distributed_checkpoint_save',
              'save(converted_state, checkpoint_id=path)',
            ),
            ...(done ? DCP_AT.done : DCP_AT.write),
          ];
        if (done)
          return [
            ...head,
            L(
              `${PL}strategies/ddp.py`,
              303,
              'barrier',
              'torch.distributed.barrier(device_ids=self.determine_ddp_device_ids())',
            ),
            ...BARRIER,
          ];
        return [
          ...head,
          L(
            `${PL}strategies/strategy.py`,
            490,
            'save_checkpoint',
            'self.checkpoint_io.save_checkpoint(checkpoint, filepath, storage_options=storage_options)',
          ),
          L(
            'lightning/fabric/plugins/io/torch_io.py',
            58,
            'save_checkpoint',
            '_atomic_save(checkpoint, path)',
          ),
          L(
            'lightning/fabric/utilities/cloud_io.py',
            89,
            '_atomic_save',
            'torch.save(checkpoint, bytesbuffer)',
          ),
          ...TORCH_SAVE[point.at === 'save' && point.sub === 'close' ? 'close' : 'write'],
        ];
      }
      case 'peer':
        if (fsdp)
          return [
            ...PL_STEP,
            step(71, 'loss = self(batch)'),
            ...CALL,
            U('model.py', 52, 'forward', 'return self.net(batch["input_ids"])'),
            ...fsdpGather(p.fsdpBlock),
          ];
        return p.ddpWait === 'backward'
          ? PL_BACKWARD
          : [...PL_STEP, step(73, 'self.log("train/loss", loss.item(), prog_bar=True)')];
      case 'eval': {
        const head = [
          EPOCH(300, 'self.val_loop.run()'),
          L(
            `${PL}loops/evaluation_loop.py`,
            145,
            'run',
            'self._evaluation_step(batch, batch_idx, dataloader_idx, dataloader_iter)',
          ),
          L(
            `${PL}loops/evaluation_loop.py`,
            437,
            '_evaluation_step',
            'output = call._call_strategy_hook(trainer, hook_name, *step_args)',
          ),
          L(`${PL}trainer/call.py`, 319, '_call_strategy_hook', 'output = fn(*args, **kwargs)'),
          L(
            `${PL}strategies/strategy.py`,
            411,
            'validation_step',
            'return self.lightning_module.validation_step(*args, **kwargs)',
          ),
        ];
        if (point.v < 0.3)
          return [
            EPOCH(300, 'self.val_loop.run()'),
            L(
              `${PL}loops/evaluation_loop.py`,
              132,
              'run',
              'batch, batch_idx, dataloader_idx = next(data_fetcher)',
            ),
            ...PL_FETCH,
            ...LOADING[p.loading === 'custom' ? 'pinned' : p.loading],
          ];
        if (point.v < 0.8)
          return [
            ...head,
            U('model.py', 90, 'validation_step', 'loss = self(batch)'),
            ...running(point.depth, fsdp, point.mlp),
          ];
        return [
          ...head,
          U(
            'model.py',
            92,
            'validation_step',
            'self.acc.update(logits.argmax(-1).cpu(), batch["labels"].cpu())',
          ),
        ];
      }
    }
  };
  return [...PL_OUTER, ...inner()];
}

/** The training thread's frames of a node at `point`. */
export function trainingFrames(p: Program, point: Point): Tpl[] {
  return p.framework === 'hf'
    ? hf(p, point)
    : p.framework === 'lightning'
      ? lightning(p, point)
      : loop(p, point);
}

/** The client keeps the 40 innermost frames of a thread. */
const MAX_FRAMES = 40;

const thread = (env: Env, name: string, tpls: readonly Tpl[], training: boolean) => {
  const dropped = Math.max(0, tpls.length - MAX_FRAMES);
  return JSON.stringify({
    name,
    training,
    daemon: !training,
    frames: place(env, tpls.slice(-MAX_FRAMES)),
    ...(dropped ? { frames_dropped: dropped } : {}),
  });
};
/** Idle threads are the same on every node with the same install: serialized once (the fleet is large). */
const idle = new Map<string, string>();

/** A stack file's text as the client writes it (JSON): the training thread first, then the idle ones. */
export function stackText(
  rank: number,
  env: Env,
  training: readonly Tpl[],
  others: readonly (keyof typeof BYSTANDERS)[],
  step: number,
  capturedAt: number,
  stuckS: number,
): string {
  const threads = [thread(env, 'MainThread', training, true)];
  others.forEach((o, i) => {
    const name = o === 'writer' ? 'trainwatch-writer' : `${o}-${i}`;
    const key = `${env.site}|${env.std}|${env.code}|${name}`;
    if (!idle.has(key)) idle.set(key, thread(env, name, BYSTANDERS[o], false));
    threads.push(idle.get(key)!);
  });
  const head = JSON.stringify({
    node_rank: rank,
    captured_at: new Date(capturedAt).toISOString(),
    step,
    stuck_s: Math.round(stuckS * 10) / 10,
    pid: 4000 + ((rank * 7919) % 50_000),
  });
  return `${head.slice(0, -1)},"threads":[${threads.join(',')}],"truncated":false}`;
}
