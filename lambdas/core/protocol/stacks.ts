import * as z from 'zod/mini';
import '../base/zod.js';
import { MAX_NODES, MAX_STACK_BYTES, stackFile } from './files.js';
import { type Parsed, parseJson } from './parse.js';

const text = (max: number) => z.string().check(z.maxLength(max));

/** One frame: where the thread is, as Python's traceback gives it. */
const FrameSchema = z.looseObject({
  file: text(240),
  line: z.optional(z.nullable(z.int().check(z.minimum(0)))),
  function: text(120),
  code: z.optional(z.nullable(text(160))),
});

/** One thread of the process; `frames` outermost first, innermost last. */
const ThreadSchema = z.looseObject({
  name: z.optional(text(80)),
  training: z.optional(z.boolean()),
  frames: z.array(FrameSchema).check(z.maxLength(64)),
});

/**
 * `stacks/{node_rank}.json` (protocol v1.2): the Python stacks of a node whose training thread has made
 * no progress() call for a while. Data from the training host: it is parsed, capped and shown escaped,
 * never executed.
 */
export const StackFileSchema = z.looseObject({
  node_rank: z.int().check(z.minimum(0), z.maximum(MAX_NODES - 1)),
  captured_at: z.optional(z.union([z.string(), z.number()])),
  step: z.optional(z.nullable(z.int().check(z.minimum(0)))),
  stuck_s: z.optional(z.number().check(z.minimum(0))),
  /** v1.3: whether the training thread's stack changed between the writer's samples before the capture. */
  moving: z.optional(z.nullable(z.boolean())),
  threads: z.array(ThreadSchema).check(z.maxLength(128)),
});

export type StackFile = z.infer<typeof StackFileSchema>;
export type StackFrame = z.infer<typeof FrameSchema>;

/** Parses `stacks/{rank}.json`; never throws: a hostile or huge file is a one-line problem. */
export function parseStackFile(bytes: Uint8Array, rank: number): Parsed<StackFile> {
  const file = stackFile(rank);
  if (bytes.length > MAX_STACK_BYTES)
    return { ok: false, problem: `${file} is ${bytes.length} bytes (at most ${MAX_STACK_BYTES})` };
  const parsed = parseJson(file, bytes, StackFileSchema);
  if (parsed.ok && parsed.value.node_rank !== rank)
    return { ok: false, problem: `${file}: node_rank is ${parsed.value.node_rank}, not ${rank}` };
  return parsed;
}
