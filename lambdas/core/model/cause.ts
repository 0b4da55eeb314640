import type { HealthFindingKind } from './slices/health.js';

/** Why a run is WARNING, for the action people are told to take: a health finding names its kind. */
export type WarningCause =
  | 'heartbeat_stale'
  | 'node_silent'
  | 'nodes_missing'
  | HealthFindingKind
  | 'finding'
  /** STALLED with the nodes' stacks in the reason (core/stacks): the action points at them. */
  | 'stacks';
