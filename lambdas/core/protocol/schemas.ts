import * as z from 'zod';
import { MAX_NODES } from './files.js';

const timestamp = z.union([z.string(), z.number()]);

/** `metadata.json`: the run is alive. Unknown fields are kept. */
export const MetadataSchema = z.looseObject({
  run_id: z.string().optional(),
  status: z.string().optional(),
  phase: z.string().optional(),
  last_update: timestamp.optional(),
  instance_id: z.string().optional(),
  job_name: z.string().optional(),
  started_at: timestamp.optional(),
  attempt: z.number().int().min(1).optional(),
  log_path: z.string().optional(),
  checkpoint_dir: z.string().optional(),
  profile: z.string().optional(),
  stale_minutes: z
    .number()
    .positive()
    .max(7 * 24 * 60)
    .optional(),
  tags: z.record(z.string(), z.unknown()).optional(),
  /** v1.1: how many nodes the run expects to write `nodes/{node_rank}.json`. */
  nodes: z.number().int().min(1).max(MAX_NODES).optional(),
});

/** `progress.json`: the run makes progress. Unknown fields (metrics) are kept. */
export const ProgressSchema = z.looseObject({
  step: z.number().int().min(0),
  total_steps: z.number().int().min(0).nullable().optional(),
  loss: z.number().nullable().optional(),
  learning_rate: z.number().nullable().optional(),
  last_updated: timestamp.optional(),
});

export type Metadata = z.infer<typeof MetadataSchema>;
export type Progress = z.infer<typeof ProgressSchema>;
