import * as z from 'zod/mini';
import '../base/zod.js';
import { MAX_NODES } from './files.js';

const timestamp = z.union([z.string(), z.number()]);

/** `metadata.json`: the run is alive. Unknown fields are kept. */
export const MetadataSchema = z.looseObject({
  run_id: z.optional(z.string()),
  status: z.optional(z.string()),
  phase: z.optional(z.string()),
  last_update: z.optional(timestamp),
  instance_id: z.optional(z.string()),
  job_name: z.optional(z.string()),
  started_at: z.optional(timestamp),
  attempt: z.optional(z.int().check(z.minimum(1))),
  log_path: z.optional(z.string()),
  checkpoint_dir: z.optional(z.string()),
  profile: z.optional(z.string()),
  stale_minutes: z.optional(z.number().check(z.positive(), z.maximum(7 * 24 * 60))),
  tags: z.optional(z.record(z.string(), z.unknown())),
  /** v1.1: how many nodes the run expects to write `nodes/{node_rank}.json`. */
  nodes: z.optional(z.int().check(z.minimum(1), z.maximum(MAX_NODES))),
});

/** `progress.json`: the run makes progress. Unknown fields (metrics) are kept. */
export const ProgressSchema = z.looseObject({
  step: z.int().check(z.minimum(0)),
  total_steps: z.optional(z.nullable(z.int().check(z.minimum(0)))),
  loss: z.optional(z.nullable(z.number())),
  learning_rate: z.optional(z.nullable(z.number())),
  last_updated: z.optional(timestamp),
});

export type Metadata = z.infer<typeof MetadataSchema>;
export type Progress = z.infer<typeof ProgressSchema>;
