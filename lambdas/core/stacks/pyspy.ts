import type { StackFile, StackFrame } from '../protocol/stacks.js';

/** The threads of one process as `py-spy dump --full-filenames` printed them (diagnose.sh's `stack=` lines). */
export interface PySpyDump {
  readonly pid: number;
  readonly lines: readonly string[];
}

const THREAD = /^Thread (?:\d+|0x[0-9a-fA-F]+) \(([^)]*)\): "(.{0,80})"/;
/** `    Queue.get (/usr/lib/python3.11/queue.py:171)`: qualified function, file, line. */
const FRAME = /^\s+(.{1,120}?) \((.{1,240}):(\d+)\)\s*$/;
/** torchrun's own agent process: it waits for the workers and is never the training process. */
const AGENT = /torch\/distributed\/(elastic|run\.py)/;

/** One process's dump as the stack file the client would have written (frames outermost first). */
function toStack(lines: readonly string[]): StackFile['threads'] {
  const threads: { name: string; training: boolean; frames: StackFrame[] }[] = [];
  for (const line of lines) {
    const t = THREAD.exec(line);
    if (t) {
      threads.push({ name: t[2]!, training: t[2] === 'MainThread', frames: [] });
      continue;
    }
    const f = FRAME.exec(line);
    const cur = threads.at(-1);
    if (f && cur && cur.frames.length < 64)
      cur.frames.unshift({ file: f[2]!, line: Number(f[3]), function: f[1]! });
  }
  return threads;
}

/**
 * The training process's threads from a diagnosis's py-spy dumps: the first process that is not
 * torchrun's agent, its main thread marked as the training thread (py-spy cannot tell which thread
 * calls `progress()`). Undefined without a usable dump. Pure.
 */
export function stackFromPySpy(rank: number, dumps: readonly PySpyDump[]): StackFile | undefined {
  for (const d of dumps) {
    const threads = toStack(d.lines);
    const main = threads.find((t) => t.training);
    if (!main?.frames.length || main.frames.some((f) => AGENT.test(f.file))) continue;
    return { node_rank: rank, threads };
  }
  return undefined;
}
