import type { Wait, WaitKind } from '../model/slices/stacks.js';
import type { StackFrame } from '../protocol/stacks.js';

/** Keeps the characters of Python names and file names; anything else (a space, `<`, `:`, a backtick) becomes `?`. */
const safe = (text: string) => text.replace(/[^\w.<>-]/g, '?').slice(0, 80);
const base = (file: string) => safe(file.slice(file.lastIndexOf('/') + 1));
/** Frames of the interpreter, the standard library and installed packages: not the user's code. */
const LIBRARY = /site-packages\/|dist-packages\/|\/lib\/python\d[\d.]*\/|^<frozen |^<string>$/;
const isUser = (f: StackFrame) => !LIBRARY.test(f.file);
/** The standard library's own waits, shown by module: queue.get, threading.wait, selectors.select. */
const STDLIB_WAIT =
  /\/lib\/python\d[\d.]*\/(queue|threading|selectors|socket|subprocess|multiprocessing\/\w+)\.py$/;

const COLLECTIVES =
  /^(all_reduce|all_gather\w*|reduce_scatter\w*|broadcast\w*|barrier|monitored_barrier|all_to_all\w*|reduce|gather\w*|scatter\w*|send|recv|isend|irecv|batch_isend_irecv|wait)$/;

interface Rule {
  readonly kind: WaitKind;
  readonly match: (f: StackFrame) => boolean;
  readonly call: (f: StackFrame) => string;
}

/**
 * Where the thread is, told by a library frame: the innermost frame any of these matches decides (a barrier
 * inside a `save_checkpoint` waits in the barrier; a `torch.save` inside it is the save).
 */
const STRONG: readonly Rule[] = [
  {
    kind: 'data_loader',
    match: (f) => /torch\/utils\/data\/dataloader\.py$/.test(f.file) && f.function === '__next__',
    call: () => 'DataLoader.__next__',
  },
  {
    kind: 'checkpoint_io',
    match: (f) =>
      /torch\/serialization\.py$|torch\/distributed\/checkpoint\/|safetensors\/|orbax\//.test(f.file) ||
      /^(save_checkpoint|_save_checkpoint|save_pretrained|save_state)$/.test(f.function),
    // Every frame of serialization.py is inside torch.save or torch.load (`_save`, `__exit__` of its zip file).
    call: (f) =>
      /torch\/serialization\.py$/.test(f.file)
        ? /load/.test(f.function)
          ? 'torch.load'
          : 'torch.save'
        : f.function,
  },
  {
    kind: 'collective',
    match: (f) =>
      (/torch\/distributed\/(distributed_c10d|c10d_logger)\.py$|deepspeed\/comm\//.test(f.file) &&
        COLLECTIVES.test(f.function)) ||
      /^(all_reduce|all_gather|allreduce|barrier|broadcast)$/.test(f.function),
    call: (f) => f.function,
  },
];

/** What the thread waits on underneath, when no library frame says more: first rule found, innermost first. */
const WEAK: readonly Rule[] = [
  {
    kind: 'cuda',
    match: (f) =>
      (/torch\/cuda\/(__init__|streams)\.py$/.test(f.file) && f.function === 'synchronize') ||
      (/torch\/autograd\/(__init__|graph)\.py$/.test(f.file) && /backward/.test(f.function)) ||
      (isUser(f) && /\.(item|cpu|tolist|numpy|synchronize)\(\)|\.to\(["']cpu["']\)/.test(f.code ?? '')),
    call: (f) =>
      /torch\/cuda\//.test(f.file)
        ? 'torch.cuda.synchronize'
        : /torch\/autograd\//.test(f.file)
          ? 'backward'
          : (/\.(item|cpu|tolist|numpy|synchronize)\(\)/.exec(f.code ?? '')?.[0] ?? '.to("cpu")'),
  },
  {
    kind: 'sleep',
    match: (f) => isUser(f) && /\bsleep\(/.test(f.code ?? ''),
    call: () => 'time.sleep',
  },
  {
    kind: 'lock',
    match: (f) =>
      (/\/lib\/python\d[\d.]*\/threading\.py$/.test(f.file) && /^(acquire|wait|join)$/.test(f.function)) ||
      (isUser(f) && /\.acquire\(|\bwith\b.*lock.*:/i.test(f.code ?? '')) ||
      // a library's own lock (logging's handler lock, held by a thread that died holding it)
      (f.function === 'acquire' && /\block\.acquire\(/.test(f.code ?? '')),
    call: (f) => (isUser(f) || !/threading\.py$/.test(f.file) ? 'lock.acquire' : `threading.${f.function}`),
  },
];

/**
 * Where a training thread waits, from its frames (outermost first, as written). The innermost library
 * frame that names a wait (a collective, the data loader, checkpoint I/O) decides; else the first of the
 * weaker rules found (CUDA, sleep, a lock), innermost first; a thread that matches
 * none is running code (a slow step, a busy loop). Pure.
 */
export function waitOf(frames: readonly StackFrame[]): Wait {
  // py-spy prints qualified names (`Queue.get`, `_BaseDataLoaderIter.__next__`): the rules match the last part.
  // Names reach alerts: only what a Python name or file name holds (no spaces, links, mentions, markup).
  const inner = [...frames]
    .reverse()
    .map((f) => ({ ...f, function: safe(f.function.slice(f.function.lastIndexOf('.') + 1)) }));
  const user = inner.find(isUser);
  const at = user ? `${base(user.file)}:${user.line ?? '?'}` : undefined;
  // The outermost of the standard library's wait frames at the top: queue.get, not the threading.wait in it.
  let k = 0;
  while (k < inner.length && STDLIB_WAIT.test(inner[k]!.file)) k++;
  const std = k > 0 ? inner[k - 1]! : undefined;
  const blocks =
    std && `${STDLIB_WAIT.exec(std.file)![1]!.replace(/^multiprocessing\//, '')}.${std.function}`;
  for (const f of inner) {
    const rule = STRONG.find((r) => r.match(f));
    if (rule) return { kind: rule.kind, call: rule.call(f), blocks, at };
  }
  for (const rule of WEAK) {
    const f = inner.find(rule.match);
    if (f) return { kind: rule.kind, call: rule.call(f), blocks, at };
  }
  return { kind: 'running', call: user?.function ?? inner[0]?.function ?? 'unknown', blocks, at };
}

/** Two waits are the same when their kind, call and user line are: a node's signature. */
export const signature = (w: Wait) => `${w.kind}|${w.call}|${w.at ?? ''}`;
