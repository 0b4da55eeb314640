import * as z from 'zod/mini';
import { checked } from './ssmParams.js';
import '../base/zod.js';
import { MAX_NODES, nodeFile } from './files.js';
import { type Parsed, parseJson } from './parse.js';

const timestamp = z.union([z.string(), z.number()]);
/** A measurement: writers leave out what they cannot read, and null says the same. */
const reading = (schema: z.ZodMiniNumber) => z.optional(z.nullable(schema));

/** The throttle reasons a writer may name (NVML's, in snake case); others are ignored. */
export const THROTTLE_REASONS = [
  'gpu_idle',
  'applications_clocks',
  'sw_power_cap',
  'hw_slowdown',
  'sync_boost',
  'sw_thermal',
  'hw_thermal',
  'hw_power_brake',
  'display_clocks',
] as const;
export type ThrottleReason = (typeof THROTTLE_REASONS)[number];

/** One GPU of a node, from NVML or `nvidia-smi --query-gpu`. Unknown fields are kept. */
export const NodeGpuSchema = z.looseObject({
  index: z.int().check(z.minimum(0), z.maximum(1023)),
  util: reading(z.number().check(z.minimum(0), z.maximum(100))),
  mem_used_mib: reading(z.number().check(z.minimum(0))),
  mem_total_mib: reading(z.number().check(z.minimum(0))),
  temp_c: reading(z.number()),
  power_w: reading(z.number().check(z.minimum(0))),
  ecc_uncorrected: reading(z.int().check(z.minimum(0))),
  /** Seconds this GPU has been at ≤ 5 % utilisation at every sample the writer took (absent while busy). */
  idle_s: reading(z.number().check(z.minimum(0))),
  /** SM clock now and its maximum (MHz), power limit (W): where NVML gives them (a throttled GPU runs slower). */
  sm_clock_mhz: reading(z.number().check(z.minimum(0))),
  sm_clock_max_mhz: reading(z.number().check(z.minimum(0))),
  power_limit_w: reading(z.number().check(z.minimum(0))),
  /**
   * NVML's clock throttle reasons now (`[]`: none). Any short strings pass, so a reason a newer driver adds
   * never makes the file malformed; the health rules read only THROTTLE_REASONS.
   */
  throttle: z.optional(z.nullable(z.array(z.string().check(z.maxLength(64))).check(z.maxLength(32)))),
  /** Why this GPU could not be read (`GPU requires reset`, `GPU is lost`): evidence, not a parse error. */
  error: z.optional(z.string().check(z.maxLength(1000))),
});

/** `nodes/{node_rank}.json` (protocol v1.1): this node is alive, and how its GPUs and steps are doing. */
export const NodeFileSchema = z
  .looseObject({
    node_rank: z.int().check(z.minimum(0), z.maximum(MAX_NODES - 1)),
    nodes: z.optional(z.int().check(z.minimum(1), z.maximum(MAX_NODES))),
    instance_id: z.optional(z.string()),
    hostname: z.optional(z.string()),
    last_updated: z.optional(timestamp),
    step: z.optional(z.nullable(z.int().check(z.minimum(0)))),
    step_time_s: reading(z.number().check(z.minimum(0))),
    samples_per_s: reading(z.number().check(z.minimum(0))),
    tokens_per_s: reading(z.number().check(z.minimum(0))),
    /** v1.3 (cadence): the writer's interval, the seconds between progress() calls (median, p99), how many. */
    every_s: reading(z.number().check(z.minimum(0))),
    call_gap_s: reading(z.number().check(z.minimum(0))),
    call_gap_p99_s: reading(z.number().check(z.minimum(0))),
    calls: z.optional(z.nullable(z.int().check(z.minimum(0)))),
    /** v1.3: after how long without a progress() call this node writes its stacks (absent: stacks off). */
    stack_after_s: reading(z.number().check(z.minimum(0))),
    gpus: z.optional(z.array(NodeGpuSchema).check(z.maxLength(1024))),
    /** Why no GPU could be read (`nvidia-smi exit 9: ... couldn't communicate with the NVIDIA driver`). */
    gpu_error: z.optional(z.string().check(z.maxLength(1000))),
  })
  .check(
    z.refine((n) => n.nodes === undefined || n.node_rank < n.nodes, {
      message: 'node_rank must be below nodes (ranks count from 0)',
      path: ['node_rank'],
    }),
  );

export type NodeGpu = z.infer<typeof NodeGpuSchema>;
export type NodeFile = z.infer<typeof NodeFileSchema>;

/** A parsed node file, with the fields that were dropped as unsafe (one line each); or why it is unusable. */
export type ParsedNode =
  | { ok: true; value: NodeFile; problems: readonly string[] }
  | { ok: false; problem: string };

/** A DNS host name (RFC 1123 labels, `_` tolerated): nothing a shell, Slack or an SSM parameter could misread. */
export const HOSTNAME_PATTERN = /^(?=.{1,253}$)[A-Za-z0-9][A-Za-z0-9_-]{0,62}(\.[A-Za-z0-9_-]{1,63})*$/;

/**
 * Parses `nodes/{rank}.json`; never throws. `rank` is the rank its key names, when known: a body that
 * claims another rank is unusable. `instance_id` is checked exactly as metadata.json's is before it may
 * reach SSM, and `hostname` against HOSTNAME_PATTERN: an unsafe one is dropped (listed in `problems`),
 * the rest of the file kept.
 */
export function parseNodeFile(bytes: Uint8Array, rank?: number): ParsedNode {
  const file =
    rank !== undefined && Number.isInteger(rank) && rank >= 0 && rank < MAX_NODES
      ? nodeFile(rank)
      : 'node file';
  const parsed: Parsed<NodeFile> = parseJson(file, bytes, NodeFileSchema);
  if (!parsed.ok) return parsed;
  const node = { ...parsed.value };
  if (rank !== undefined && node.node_rank !== rank)
    return { ok: false, problem: `${file}: node_rank is ${node.node_rank}, not ${rank} as its name says` };
  const problems: string[] = [];
  const instanceId = checked('instanceId', 'instance_id', node.instance_id?.trim(), problems);
  if (instanceId === undefined) delete node.instance_id;
  else node.instance_id = instanceId;
  if (node.hostname !== undefined && !HOSTNAME_PATTERN.test(node.hostname)) {
    problems.push(`hostname ${JSON.stringify(node.hostname.slice(0, 80))} is not a valid host name: ignored`);
    delete node.hostname;
  }
  return { ok: true, value: node, problems: problems.map((p) => `${file}: ${p}`) };
}
