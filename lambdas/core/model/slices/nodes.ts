/** One node file as a LIST page shows it: freshness without reading the body. */
export interface NodeObject {
  readonly rank: number;
  readonly lastModified: number;
  readonly etag: string;
  readonly size: number;
}

/**
 * What the run item remembers of one node (compact: the whole map stays far below DynamoDB's 400 KB item
 * limit at 256 nodes). Freshness comes from `lastSeen` (S3's LastModified), the rest from the last body read.
 */
export interface NodeSummary {
  readonly lastSeen: number;
  /** ETag of the body last read: an unchanged ETag needs no new read. */
  readonly etag?: string;
  readonly instanceId?: string;
  readonly hostname?: string;
  readonly step?: number;
  readonly stepTimeS?: number;
  /** v1.3 cadence, as the node's writer reported it: its interval, and its progress() calls' gaps (seconds). */
  readonly everyS?: number;
  readonly gapS?: number;
  readonly gapP99S?: number;
  readonly calls?: number;
  readonly stackAfterS?: number;
  /** Mean GPU utilisation (%) over the node's GPUs at the last read. */
  readonly gpuUtil?: number;
  readonly gpus?: number;
  /** When the body was last read (bounded by the telemetry period). */
  readonly readAt?: number;
  /** A problem with this node's file (malformed, wrong rank) or what the diagnosis found, one line. */
  readonly finding?: string;
}

/** Node summaries by rank (string keys: the map is stored as a DynamoDB map). */
export type NodeSummaries = Readonly<Record<string, NodeSummary>>;

/** How a node is named in alerts: "node 7 (i-0abc…, ip-10-0-1-23)". */
export function nodeLabel(rank: number, s: NodeSummary | undefined): string {
  const parts = [s?.instanceId, s?.hostname].filter((p): p is string => Boolean(p));
  return parts.length ? `node ${rank} (${parts.join(', ')})` : `node ${rank}`;
}
