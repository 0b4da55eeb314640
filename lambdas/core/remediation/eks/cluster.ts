// A job's pods, their containers, events and nodes, as trainwatch reads them (only the fields it uses).

/** A container's state: waiting (a reason like CrashLoopBackOff), running, or terminated with its exit. */
export type ContainerState =
  | { readonly state: 'waiting'; readonly reason?: string; readonly message?: string }
  | { readonly state: 'running'; readonly startedAt?: string }
  | {
      readonly state: 'terminated';
      readonly exitCode: number;
      /** OOMKilled, Error, ContainerCannotRun, Completed, … */
      readonly reason?: string;
      readonly signal?: number;
      readonly message?: string;
      readonly finishedAt?: string;
    }
  | { readonly state: 'unknown' };

/** One container of a pod. */
export interface ContainerStatus {
  readonly name: string;
  readonly ready: boolean;
  readonly restartCount: number;
  readonly current: ContainerState;
  /** How the previous run of the container ended (a crash loop's cause is here). */
  readonly last?: ContainerState;
}

/** A pod as trainwatch reads it. */
export interface Pod {
  readonly name: string;
  /** Pending, Running, Succeeded, Failed, Unknown. */
  readonly phase: string;
  readonly nodeName?: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Why the pod as a whole stopped: Evicted, NodeLost, Shutdown, … */
  readonly reason?: string;
  readonly message?: string;
  /** Deletion has begun (the kubelet is stopping it). */
  readonly deleting: boolean;
  readonly containers: readonly ContainerStatus[];
}

/** One event about an object, its repetitions folded into `count`. */
export interface KubeEvent {
  /** Normal or Warning. */
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
  /** When it last happened (ISO 8601); undefined when the event carries no time. */
  readonly lastTimestamp?: string;
  /** The kind of the object it is about (Pod, Node, PyTorchJob, …). */
  readonly objectKind?: string;
}

/** One node condition: `status` is True, False or Unknown (the kubelet stopped reporting). */
export interface NodeCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastHeartbeatTime?: string;
  readonly lastTransitionTime?: string;
}

/** A node as trainwatch reads it. */
export interface KubeNode {
  readonly name: string;
  readonly conditions: readonly NodeCondition[];
  /** Cordoned: no new pods are placed on it. */
  readonly unschedulable: boolean;
  /** The EC2 instance behind it, from `spec.providerID`. */
  readonly instanceId?: string;
}
