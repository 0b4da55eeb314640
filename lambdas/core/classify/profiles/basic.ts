import type { SignalInput } from '../schema.js';

// A training log prefixes lines with ranks ("[rank3]: ", "10: ", "[1,3]<stderr>:"); a Python exception's last
// line must still be recognised after such a prefix, and nowhere else (a message that merely names an error).
// Ray prefixes its workers' lines ("(RayTrainWorker pid=954, ip=10.0.0.1) "), pdsh and DeepSpeed the host's IP
// or name ("gpu-node-07: "), `kubectl logs --timestamps` an RFC 3339 time, `kubectl logs --prefix` the pod
// ("[pod/trainer-0/pytorch] "), docker compose the service ("trainer-1  | ").
const LINE_PREFIX = String.raw`^\s*(?:(?:\[rank\d+\]:|\[\d+(?:,\d+)?\](?:<std\w+>)?:|\d+:|\[default\d+\]:|\([\w.:-]{1,64} pid=\d+(?:, ip=[\d.]+)?\)|(?:\d{1,3}\.){3}\d{1,3}:|[A-Za-z][\w.-]{0,63}:(?=\s)|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?Z?|\[pod/[^\]\s]{1,200}\]|[\w.-]{1,64}\s{1,20}\|)\s*)?`;
const SIZE = String.raw`\d+(?:\.\d+)?\s?[KMGTP]?i?B`;
// An Xid in every driver format: "NVRM: Xid (PCI:0000:3b:00): 79, pid=…", "Xid (0000:3b:00): 79", "Xid=69",
// "XID error 79" (DCGM), '"xid": 79' (JSON logs); never "Xid errors: 0" (a healthy counter).
const XID = String.raw`\bXid\b['"]?(?:\s*\((?<pci>(?:PCI:)?[0-9A-Fa-f:.]+)\))?(?:\s+errors?)?\s*[:=]?\s*(?!0\b)`;
// Xids that report ECC trouble: 48 double-bit error, 63/64 row remapping, 94/95 contained/uncontained ECC.
const ECC_XIDS = '48|63|64|94|95';
// Xids that usually follow the application's own fault (illegal access, a killed process).
const APP_XIDS = '13|31|43|45';
// A metric named for a loss, in any logger: loss, 'loss', val_loss, train/loss, critic/vf_loss, loss_cls.
// The name may sit in quotes or brackets ("[Loss] nan", loguru-style tables).
const LOSS_KEY = String.raw`(?<![\w/.-])['"]?[\w/.-]{0,60}loss[\w/.-]{0,40}['"\]]?`;
const NON_FINITE = String.raw`['"\[]?(?:tensor\(|array\()?(?<value>[-+]?(?:nan|inf(?:inity|inite)?))\b`;

/** Failures every training job can hit: memory, disk, numbers, preemption, GPU hardware, Python errors. */
export const BASIC_SIGNALS: readonly SignalInput[] = [
  {
    name: 'gpu_fallen_off_bus',
    pattern: String.raw`${XID}(?<xid>79)\b|fallen off the bus`,
    error_type: 'gpu_xid',
    severity: 'critical',
    subsystem: 'gpu',
    priority: 100,
    description: 'The GPU disappeared from PCIe (Xid 79): the node needs replacing',
  },
  {
    name: 'gpu_xid',
    pattern: String.raw`${XID}(?<xid>(?!(?:${APP_XIDS}|${ECC_XIDS})\b)\d+)`,
    error_type: 'gpu_xid',
    severity: 'critical',
    subsystem: 'gpu',
    priority: 98,
  },
  {
    name: 'gpu_xid_ecc',
    pattern: String.raw`${XID}(?<xid>${ECC_XIDS})\b`,
    error_type: 'ecc_error',
    severity: 'critical',
    subsystem: 'gpu',
    priority: 99,
    description: 'An Xid that reports an uncorrectable ECC error or a row-remapping event',
  },
  {
    name: 'gpu_ecc_uncorrectable',
    pattern: String.raw`uncorrectable ECC error|ECC error[^\n]{0,300}uncorrect|double[- ]bit (?:ECC|error)|(?<![A-Za-z])DBE(?![A-Za-z])|cudaErrorECCUncorrectable|Pending Page (?:Retirement|Blacklist)\s*:\s*Yes|row[-_ ]?remap\w*[^\n]{0,100}(?:fail|pending)|UNCORRECTABLE_ROW_REMAP|Remapping Failure Occurred\s*:\s*Yes|CUDA_ERROR_ECC_UNCORRECTABLE|^\s*(?:DRAM|SRAM) Uncorrectable\s*:\s*[1-9]|^\s*Uncorrectable Error\s*:\s*[1-9]`,
    // nvidia-smi -q prints the counters on healthy GPUs too: "Double Bit ECC Errors : 0", "DRAM Uncorrectable : 0";
    // a counter above zero (newer drivers' "DRAM Uncorrectable", the remapped rows' "Uncorrectable Error") is the fault.
    unless: String.raw`:\s*(?:0|N/A|No|None)\s*$`,
    error_type: 'ecc_error',
    severity: 'critical',
    subsystem: 'gpu',
    priority: 97,
  },
  {
    name: 'gpu_lost',
    // nvidia-smi prints ERR! in the columns of a GPU it can no longer read; NVML returns GPU_IS_LOST.
    pattern: String.raw`\bGPU is lost\b|GPU_IS_LOST\b|ERR!\s{1,30}ERR!|Unable to determine the device handle for GPU|GPU requires reset|GPU reset required|uncorrectable NVLink error|RmInitAdapter failed|\bDCGM_FR_(?:XID_ERROR|FALLEN_OFF_BUS|GPU_LOST|NVLINK_DOWN|NVLINK_ERROR_CRITICAL|UNCONTAINED_ERROR)\b`,
    error_type: 'gpu_xid',
    severity: 'critical',
    subsystem: 'gpu',
    priority: 96,
  },
  {
    name: 'gpu_xid_application',
    pattern: String.raw`${XID}(?<xid>${APP_XIDS})\b`,
    error_type: null,
    severity: 'warning',
    subsystem: 'gpu',
    priority: 5,
    description: 'An Xid that usually follows an application fault; the log says more',
  },
  {
    name: 'gpu_xid_application_alone',
    // The same Xids with no application fault anywhere in the text (a dmesg excerpt, a node report): then
    // nothing else explains them, and the GPU is what a person must look at.
    pattern: String.raw`${XID}(?<xid>${APP_XIDS})\b`,
    // An exception class name (RuntimeError:, c10::Error:); the driver's own "Graphics Exception:" is no such fault.
    excludes: String.raw`Traceback \(most recent call last\)|\b\w+(?:Error|Exception):|CUDA error|illegal memory access|Segmentation fault|core dumped|\bKilled\b`,
    error_type: 'gpu_xid',
    severity: 'error',
    subsystem: 'gpu',
    priority: 6,
  },
  {
    name: 'gpu_xid_launch_failure',
    // An application Xid under a kernel that died with "unspecified launch failure" and no fault of the program's
    // own (no illegal address, no assert): the launch failed in the GPU, the usual face of a failing board.
    pattern: String.raw`${XID}(?<xid>${APP_XIDS})\b`,
    requires: String.raw`unspecified launch failure|CUDA_ERROR_LAUNCH_FAILED|cudaErrorLaunchFailure`,
    excludes: String.raw`illegal memory access|illegal instruction|misaligned address|device-side assert`,
    error_type: 'gpu_xid',
    severity: 'error',
    subsystem: 'gpu',
    priority: 7,
  },
  {
    name: 'spot_interruption',
    pattern: String.raw`spot[ /_-]?(?:instance[ _-]?)?(?:interruption|termination)(?: notice| warning)?|EC2 Spot Instance Interruption|DUE TO PREEMPTION|\bpreempted by\b|\b(?:is|was|been|being|got) preempted\b|^\s*Reason:\s*Evicted\b|\s\d+/\d+\s+Evicted\s|\bpod\b[^\n]{0,100}\bevicted\b|The node was low on resource|spot[ _-]?(?:instance[ _-]?)?interrupted|"action"\s*:\s*"(?:terminate|stop|hibernate)"\s*,\s*"time"|imminent node shutdown|\bnode is shutting down\b|Host EC2 \(instance [\w-]{1,40}\) terminated|instances\.preempted\b|\bpreemption (?:notice|signal|warning)\b|"EventType"\s*:\s*"(?:Preempt|Terminate)"|\bscheduled for termination\b|\b(?:instance|node) termination notice\b|\bReason:\s*Preempting\b|\s\d+[smhd]\s+default-scheduler\s+Preempt|auto-requeue signal|\bRequeu(?:e|ing) job \d+|\bSlurm[^\n]{0,40}\bsignal SIGUSR1\b|\bNode failure on\b|\b(?:node|instance|vm|tpu|pod|host|machine|worker|slice|job|allocation)s? (?:[\w.-]{1,60} )?preempted\b|\b(?:spot|preemptible)\b[^\n]{0,60}\breclaim(?:ed|ing)\b|\breclaim(?:ed|ing)\b[^\n]{0,40}\b(?:spot|preemptible)\b|\b(?:PreemptionBy\w{0,20}Scheduler|EvictionByEvictionAPI|TerminationByKubelet|DeletionByTaintManager)\b`,
    // Kubernetes 1.26+ sets a DisruptionTarget condition whose reason says who took the pod away (the scheduler
    // preempting it, an eviction, the kubelet shutting the node down, a taint); clouds say a node or VM was preempted
    // or that the spot capacity was reclaimed.
    // EC2's instance-action notice is a JSON object of an action and a time; kubelet's graceful node shutdown
    // and AWS Batch's "Host EC2 (instance …) terminated" say the machine went away under the job. Azure's scheduled
    // events say "EventType": "Preempt"; Kubernetes' scheduler records a Preempting event; a job that handles SLURM's
    // pre-time-limit SIGUSR1 (Lightning's auto-requeue) is being stopped and requeued; srun reports a node failure.
    // A note that a node was not (or would be, if …) preempted is no preemption.
    unless: String.raw`\b(?:no|not|never|if|when|unless|whether)\b[^\n]{0,30}\bpreempted\b|\b(?:handler|listener|watcher|monitor)s? (?:is |was )?(?:installed|registered|enabled|started)\b`,
    error_type: 'cancelled_preempted',
    severity: 'error',
    subsystem: 'scheduler',
    priority: 88,
  },
  {
    name: 'cuda_oom',
    pattern: String.raw`(?:CUDA|HIP) out of memory\.?(?:\s*Tried to allocate (?<alloc_size>${SIZE}))?(?:[.\s(]*GPU (?<gpu>\d+)[;,]?\s(?:has a total capa\w* of )?(?<gpu_total>${SIZE}))?`,
    fields: ['alloc_size', 'gpu', 'gpu_total'],
    error_type: 'oom',
    severity: 'critical',
    subsystem: 'cuda',
    priority: 90,
  },
  {
    name: 'cuda_oom_other',
    // TensorFlow and XLA call an allocation failure ResourceExhausted, in their two spellings.
    pattern: String.raw`(?:ResourceExhaustedError|RESOURCE_EXHAUSTED)\b[^\n]{0,200}(?:memory|\bOOM\b|allocat)|CUDA (?:driver |runtime )?error(?: \(2\))?\s*:?\s*out of memory|CUDNN_STATUS_ALLOC_FAILED|CUBLAS_STATUS_ALLOC_FAILED|torch\.(?:cuda\.)?OutOfMemoryError|NCCL WARN Cuda failure '?out of memory|Failed to CUDA calloc|RESOURCE_EXHAUSTED: Out of memory|cudaErrorMemoryAllocation|CUDA_ERROR_OUT_OF_MEMORY|hipErrorOutOfMemory|HIP error:\s?out of memory|No available memory for the cache blocks|\b(?:NPU|XPU|MPS backend|GPU) out of memory|OOM when allocating tensor|cuda\w*(?:Malloc|Alloc)\w*[^\n]{0,100}out of memory|\bAllocator \(\w{1,40}\) ran out of memory trying to allocate|\b(?:Error|error|failure)\s?\[(?:CUDA|HIP)\]\s?:\s?out of memory|\b(?:not enough|insufficient) (?:free )?(?:GPU|device|CUDA|VRAM|video) memory\b|failed to allocate [\d.]+\s?[KMGT]?i?B? \(\d+ bytes\) from device`,
    // TensorFlow's stream executor logs each failed device allocation ("failed to allocate 7.35G (… bytes) from
    // device: CUDA_ERROR_OUT_OF_MEMORY", hipError_t(1002) on ROCm) whatever the driver's own code says.
    // TensorFlow's BFC allocator warns "ran out of memory" and says when it is no failure (it retries smaller).
    unless: String.raw`is not a failure`,
    error_type: 'oom',
    severity: 'critical',
    subsystem: 'cuda',
    priority: 89,
  },
  {
    name: 'disk_full',
    // errno 28 and 122 in every spelling (Python's [Errno 28], C's "errno = 28", Rust's StorageFull), EDQUOT,
    // and what libraries say before the write fails (datasets' "Not enough disk space", tempfile finding no
    // writable temporary directory).
    pattern: String.raw`No space left on device(?::\s*'(?<path>[^']+)')?|\bENOSPC\b|\bEDQUOT\b|Disk quota exceeded|\[Errno (?:28|122)\]|\berrno\s*[:=]?\s*(?:28|122)\b|\bStorageFull\b|FilesystemQuotaExceeded|Not enough (?:free )?disk space|(?:\bnot|n't)(?: have)? enough free (?:disk )?space\b|\binsufficient (?:free )?disk space\b|No usable temporary directory found|condition: \[DiskPressure\]|\bDiskPressure\s+True\b|node\.kubernetes\.io/disk-pressure|low on resource: ephemeral-storage|ephemeral[- ]storage[^\n]{0,100}exceed|\b(?:disk|volume|file ?system|partition|drive)s? (?:is |was |got |became |are )?(?:full|out of (?:disk )?space)\b|\s0(?:\.0)?[KMGTP]?i?B?\s+100%\s+/|\bResource exhausted:\s?(?:/|[A-Za-z]:\\)|\bexceeded (?:your |the |its )?(?:disk|storage|inode|file ?system|block) quota\b|\b(?:disk|storage|inode|file ?system|block) quota (?:exceeded|reached|is full)\b|\bout of (?:free )?inodes\b|\bno (?:free|more) inodes\b`,
    // TensorFlow maps ENOSPC to RESOURCE_EXHAUSTED and names the file ("Resource exhausted: /ckpt/model.tmp"); its
    // memory exhaustion names an allocation instead.
    // A quota is a disk limit only when it says disk, storage, blocks or inodes: an API's "quota exceeded" is a rate limit.
    // Kubernetes evicts pods from a node whose disk filled (the DiskPressure condition true, ephemeral storage):
    // the disk is the cause. `kubectl describe node` lists "DiskPressure False" on every healthy node. `df` prints a
    // full filesystem as a row with nothing available at 100 % use; a program may just say the disk is full.
    error_type: 'disk_full',
    severity: 'critical',
    subsystem: 'disk',
    priority: 90,
  },
  {
    name: 'shared_memory_full',
    // /dev/shm is a size-limited tmpfs (64 MB by default in a container): NCCL's and the DataLoader's shared
    // segments fail when it is full, whatever error the framework then raises.
    pattern: String.raw`Error while creating shared memory segment|failed to extend /dev/shm/|insufficient shared memory \(shm\)`,
    // NCCL also fails to create a segment when a CUDA call on it fails (it says so first): not a full /dev/shm.
    excludes: String.raw`NCCL WARN Cuda failure`,
    error_type: 'disk_full',
    severity: 'critical',
    subsystem: 'disk',
    priority: 85,
  },
  {
    name: 'checkpoint_write_failed',
    // "unexpected pos N vs M": the writer wrote fewer bytes than it meant to (torch.save on a full volume).
    // Old torch's storage writer says which fd failed and why ("write(): fd 29 failed with …"): on network and FUSE
    // volumes a full disk often comes back as EIO rather than ENOSPC; safetensors' serializer fails the same way.
    pattern: String.raw`PytorchStreamWriter failed writing (?:file (?<file>\S+)|[^\n:]{1,100}): file write failed|\bunexpected pos \d+ vs \d+|\bwrite\(\): fd \d+ failed with\b|Error while serializing: IoError`,
    error_type: 'disk_full',
    severity: 'critical',
    subsystem: 'disk',
    priority: 87,
    description: 'torch.save could not write: almost always a full checkpoint volume',
  },
  {
    name: 'host_oom_kill',
    pattern: String.raw`Out of memory: Kill(?:ed)? process (?<pid>\d+) \((?<process>[^)]+)\)|Memory cgroup out of memory|invoked oom-killer|\boom-kill:|oom_kill_process|killed due to memory pressure|(?:node|host) (?:is )?running low on memory|\bOOMKilled\b|\boom[-_ ]kill(?:ed)? events?\b|out-of-memory handler|exceeded (?:its |the |step |job )?memory limit|task \d+: Out Of Memory|\bOUT_OF_MEMORY\b|by the OOM[- ]killer\b|\b(?:was|got|been|being) OOM[- ]?killed\b|\bKilled process \d+ \([^)\n]{1,64}\)[^\n]{0,40}(?:total-vm|anon-rss)|\boom_reaper: reaped process|\bRay killed this worker\b|\bkilled this worker\b[^\n]{0,300}\bmemory\b|\bkilled due to (?:the node running low on memory|memory (?:pressure|overuse|usage))`,
    // Kubernetes says OOMKilled, SLURM's cgroup counts oom-kill events or says a job exceeded its memory limit,
    // sacct reports OUT_OF_MEMORY: the same kernel OOM kill, seen by the scheduler. The kernel's own lines may lose their
    // prefix in an excerpt ("Killed process N (python) total-vm…", the oom_reaper); Ray's memory monitor kills a
    // worker itself and says memory was why.
    error_type: 'cpu_oom_killed',
    severity: 'critical',
    subsystem: 'host',
    priority: 86,
  },
  {
    name: 'host_alloc_failed',
    pattern: String.raw`DefaultCPUAllocator: (?:can't allocate memory|not enough memory)|${LINE_PREFIX}(?:[\w.]{0,60}\._)?(?:Array)?MemoryError\b|Cannot allocate memory|Unable to allocate \d+(?:\.\d+)?\s?[KMGTP]i?B for an array|'std::bad_alloc'|what\(\):\s*std::bad_alloc\b|\[Errno 12\]|\bENOMEM\b`,
    // C++ throws std::bad_alloc when new finds no memory; errno 12 (ENOMEM) is the kernel refusing an allocation or fork.
    error_type: 'cpu_oom_killed',
    severity: 'critical',
    subsystem: 'host',
    priority: 84,
  },
  {
    name: 'dataloader_killed',
    pattern: String.raw`DataLoader worker \(pid (?<pid>\d+)\) is killed by signal: Killed`,
    error_type: 'cpu_oom_killed',
    severity: 'critical',
    subsystem: 'host',
    priority: 82,
  },
  {
    name: 'sigkill',
    pattern: String.raw`^\s*(?:Killed|已杀死|已砍掉|強制終了|Getötet|Убито|Processus arrêté|Ucciso|Terminado \(killed\)|죽었음)\s*$|: line \d+:\s+\d+ Killed\b|exit(?:ed with)? (?:code|status)[ :=]*(?<exit_code>137|-9)\b|\bdied with signal (?:9|SIGKILL)\b|exitcode\s*:\s*(?<torch_exitcode>-9)\b|(?:return|exit) (?:code|status)\s*[=:]?\s*-9\b|Signal 9 \(SIGKILL\)|Signals\.SIGKILL|(?:killed|terminated) (?:by|with) (?:signal )?(?:SIGKILL|9)\b|^\w{0,10}sh: killed\s|^\[\d+\]\+?\s+(?:\d+\s+)?Killed\s|\btasks? [\d,-]{1,40}: Killed\b|\b(?:exited|terminated|killed|died|stopped|interrupted|ended) (?:with|by|due to|on|from) (?:the )?signal:? ?(?:9|SIGKILL|Killed)\b|\bsignal 9[:,]? \(?SIGKILL\b`,
    // srun reports a task the kernel killed as "task 0: Killed"; process managers say a child "exited with signal 9",
    // "interrupted by signal 9: SIGKILL", "killed by signal: Killed" (whatever the verb, signal 9 is SIGKILL).
    // A Python subprocess "returned non-zero exit status -9", mp.spawn "terminated with signal SIGKILL", a shell
    // "zsh: killed  python …" or a job-control "[1]+ Killed  python …". Bash prints strsignal(SIGKILL) in the user's
    // locale: "已杀死" (zh_CN), "強制終了" (ja), "Getötet" (de) … alone on a line, the same kill.
    // SLURM cancels a job (scancel, its time limit, a preemption) with SIGTERM and, KillWait seconds later, SIGKILL:
    // srun then reports its tasks Killed, but the scheduler stopped the job, not the OOM killer.
    excludes: String.raw`CANCELLED AT \S+|DUE TO (?:TIME LIMIT|PREEMPTION|NODE FAIL)`,
    error_type: 'cpu_oom_killed',
    severity: 'critical',
    subsystem: 'host',
    priority: 60,
    description: 'SIGKILL with no other cause in sight: on a training host, nearly always the OOM killer',
  },
  {
    name: 'loss_not_finite',
    // Separators of every logger: "loss: nan", "loss=nan", "loss nan", "loss is nan", a table's "| loss | nan |".
    pattern: String.raw`${LOSS_KEY}\s*(?:is|=|:|\||of|became)?\s*${NON_FINITE}`,
    fields: ['value'],
    error_type: 'numerical_instability',
    severity: 'error',
    subsystem: 'training',
    priority: 80,
  },
  {
    name: 'grad_norm_not_finite',
    // With fp16 loss scaling a nan grad norm on a skipped step is routine; only a nan loss is a failure.
    pattern: String.raw`\bgrad(?:ient)?[ _]?norm\b['"]?\s*(?:is|=|:|of)?\s*${NON_FINITE}`,
    error_type: null,
    severity: 'warning',
    subsystem: 'training',
    priority: 4,
  },
  {
    name: 'grad_norm_not_finite_repeated',
    // The same on three logged steps is no skipped step: the run has diverged (loss often reads 0.0 then).
    pattern: String.raw`\bgrad(?:ient)?[ _]?norm\b['"]?\s*(?:is|=|:|of)?\s*${NON_FINITE}`,
    min_lines: 3,
    error_type: 'numerical_instability',
    severity: 'error',
    subsystem: 'training',
    priority: 78,
  },
  {
    name: 'grads_not_finite_repeated',
    // Trainers that check the gradients say so on each skipped step ("found inf or nan in gradients", "NaN/Inf
    // detected in grads, skipping update"). One is a routine fp16 overflow; three logged in a row is a run whose
    // every step overflows.
    pattern: String.raw`\b(?:nan|inf)(?:\s?(?:/|or|and)\s?(?:nan|inf))?s?\b(?: values?)?(?: (?:found|detected|encountered))? in (?:the )?(?:local )?grad(?:ient)?s?\b`,
    min_lines: 3,
    error_type: 'numerical_instability',
    severity: 'error',
    subsystem: 'training',
    priority: 77,
  },
  {
    name: 'loss_scale_minimum',
    // Dynamic loss scaling halves the scale on each overflow; at 1 (or below) fp16 has no room left: every step
    // overflows, whichever scaler (DeepSpeed, Apex, fairseq, Megatron) prints it.
    pattern: String.raw`Current loss scale already at minimum|Minimum loss scale reached|loss scale [^\n]{0,300}below minimum|FloatingPointError|loss scale:? 1(?:\.0+)?, reducing to 1(?:\.0+)?(?![\d.])|loss scale from 1 to 1\b|Skipped \d+ iterations in a row due to Overflow|(?:reduc|sett|lower|decreas)\w* (?:the )?loss scale(?: to)?\s*:?\s*(?:0(?:\.\d+)?|1(?:\.0+)?|\d(?:\.\d+)?e-\d+)\b(?!\.\d)`,
    error_type: 'numerical_instability',
    severity: 'error',
    subsystem: 'training',
    priority: 80,
  },
  {
    name: 'nan_detected',
    pattern: String.raw`returned nan values in its \d+\w* output|found NaN in local (?:grad norm|forward loss)|NaN or Inf found in input tensor|is non-finite, so it cannot be clipped|number of nan iterations:\s*(?<nan_iterations>[1-9]\d*)|\bloss (?:diverged|exploded)\b|\bnon-finite loss\b|\bloss (?:is|was|became|went) (?:not finite|non-finite|infinite)\b|\bloss(?:es)? contains? (?:an? )?(?:nan|inf)|\b(?:nan|inf)s? (?:values? )?in (?:the )?loss\b|Invalid loss, terminating training|\bnan loss\b|\bNaN detected\b|Monitored metric \S+ = [-+]?(?:nan|inf)\b|but found invalid values|Found (?:Inf|NaN) or (?:NaN|Inf) global norm|probability tensor contains either|Tensor had (?:NaN|Inf) values|encountered (?:a )?(?:nan|inf)\b|(?:nan|inf)s?[^\n]{0,40}(?:detected|found) in (?:the )?(?:loss|grad)|reducing loss scale to \d(?:\.\d+)?e-(?:0?[5-9]|[1-9]\d)\b|\bNan in summary histogram\b|\bdid not improve from [-+]?inf\b|\binvalid value \((?:nan|inf)\) encountered\b`,
    error_type: 'numerical_instability',
    severity: 'error',
    subsystem: 'training',
    priority: 79,
  },
  {
    name: 'slurm_job_state',
    // SLURM's own job states (sacct, scontrol show job, srun): upper case, case-sensitive, so that a sentence
    // using the word is not one. An sacct row ends in its State and ExitCode columns ("CANCELLED+  0:15",
    // "TIMEOUT  0:0"); slurmstepd says when a cancelled or timed-out job would not die.
    pattern: String.raw`\b(?:PREEMPTED|NODE_FAIL)\b|JobState=(?:CANCELLED|TIMEOUT|DEADLINE|PREEMPTED)\b|\bCANCELLED by \d+\b|task(?:s [\d,-]{1,40}| \d+): Terminated\b|\s(?:CANCELLED\+?|TIMEOUT|DEADLINE)\s{1,40}\d{1,3}:\d{1,3}\s*$|DUE TO JOB NOT ENDING WITH SIGNALS`,
    flags: '',
    error_type: 'cancelled_preempted',
    severity: 'error',
    subsystem: 'scheduler',
    priority: 54,
  },
  {
    name: 'sigterm',
    pattern: String.raw`Signal 15 \(SIGTERM\) received|exitcode\s*:\s*-15\b|got signal: (?:1|2|15)\b|received (?:signal )?SIGTERM|Received (?:Signals\.)?(?:\d+|SIG[A-Z]+) death signal|\bSignalException\b|(?:terminated|killed) (?:by|with) (?:signal )?SIG(?:TERM|HUP|INT)\b|died with <Signals\.SIG(?:TERM|HUP|INT)\b|Signal (?:1|2|15) \(SIG(?:HUP|INT|TERM)\) received|received (?:signal )?SIG(?:HUP|INT)\b|closing signal (?:Signals\.)?SIG(?:HUP|INT|QUIT)\b|Caught signal SIG(?:TERM|HUP)\b|\b(?:caught|got|handling|detected|trapped|intercepted) (?:signal )?SIG(?:TERM|HUP|INT)\b|\bSignal handler called with signal (?:1|2|15)\b|\bcancell?ed by (?:the )?(?:user|admin\w*|operator|scheduler)\b|\bjob killed: walltime \d+ exceeded\b|\bTERM_(?:RUNLIMIT|PREEMPT|OWNER|ADMIN|FORCE_OWNER|FORCE_ADMIN)\b|exceeded (?:hard|soft) wallclock time|\bMax(?:Runtime|WaitTime)Exceeded\b|\bKilling\s{1,40}[^\n]{0,120}Stopping container\b|exit(?:ed with)? (?:code|status)[ :=]*143\b|CANCELLED AT \S+|\bSIG(?:TERM|HUP|INT) received\b|\b(?:received|caught) signal:? (?:1|2|15)\b|^\s*Terminated\s*$|srun: forcing job termination|Job step aborted|\bexceeded (?:its |the |the job's |job )?(?:wall ?(?:clock )?time|time ?limit|run ?time limit)\b|\b(?:wall ?(?:clock )?time|job time) limit (?:exceeded|reached|expired)\b`,
    // A job that ran out of wall time in any scheduler's words was stopped from outside, like a SLURM TIME LIMIT.
    // torchrun stopping its own workers after one failed: a consequence, not an outside stop.
    // SIGINT lines belong to the sigint signal below.
    unless: String.raw`\bSIGINT\b|\bsignal:? 2\b|\b2 death signal\b|closing signal (?:Signals\.)?SIGTERM|\b(?:if|when|before|unless)\b[^\n]{0,30}\b(?:wall ?(?:clock )?time|time ?limit)`,
    error_type: 'cancelled_preempted',
    severity: 'error',
    subsystem: 'scheduler',
    priority: 55,
  },
  {
    name: 'sigint',
    // SIGINT is Ctrl-C: a person (or a launcher forwarding it) stopped the job, which a restart undoes, unless the
    // stacks printed on the way out sit in a wait (a queue, a lock, a socket, a collective) away from any launcher's
    // child-waiting code: then the person stopped a job that was stuck, and the stall signals say so.
    pattern: String.raw`Received (?:Signals\.)?(?:2|SIGINT) death signal|closing signal (?:Signals\.)?SIGINT\b|\bgot signal: 2\b|Signal 2 \(SIGINT\) received|\b(?:received|caught|got|handling|detected|trapped|intercepted) (?:signal:? )?(?:SIGINT|2)\b|\bSIGINT received\b|(?:terminated|killed) (?:by|with) (?:signal )?SIGINT\b|died with <Signals\.SIGINT\b|\bSignal handler called with signal 2\b`,
    excludes: String.raw`^\s*File "(?![^"\n]{0,300}(?:subprocess|/elastic/|/launch|/launcher/|/run\.py"))[^"\n]{1,300}", line \d+,? in (?:wait|wait_for|acquire|get|_poll|poll|select|recv|_recv|_recv_bytes|recv_bytes|recv_into|join|synchronize|barrier|monitored_barrier|all_reduce|all_gather\w{0,20}|reduce_scatter\w{0,20}|broadcast\w{0,20}|wait_for_everyone|_try_get_data|_get_data|accept)\s*$`,
    flags: 'im',
    error_type: 'cancelled_preempted',
    severity: 'error',
    subsystem: 'scheduler',
    priority: 55,
  },
  {
    name: 'cuda_runtime_error',
    // Out of memory and ECC have their own signals above and outrank this one.
    pattern: String.raw`CUDA error: (?<cuda_error>[^\n]{1,200})|device-side assert triggered|CUDNN_STATUS_\w+|CUBLAS_STATUS_(?!ALLOC_FAILED)\w+|an illegal memory access was encountered|\.cu:\d+:[^\n]{0,200}Assertion [^\n]{0,300}failed`,
    error_type: 'torch',
    severity: 'error',
    subsystem: 'cuda',
    priority: 70,
  },
  {
    name: 'torch_usage_error',
    pattern: String.raw`Expected all tensors to be on the same device|mat1 and mat2 shapes cannot be multiplied|The size of tensor a \(\d+\) must match|size mismatch for \S+|Trying to backward through the graph a second time|one of the variables needed for gradient computation has been modified|Expected (?:input|target) batch_size|expected scalar type \w+ but found \w+|Error\(s\) in loading state_dict|(?:Missing|Unexpected) keys? in (?:checkpoint )?state_dict`,
    error_type: 'torch',
    severity: 'error',
    subsystem: 'python',
    priority: 65,
  },
  {
    name: 'python_exception',
    pattern: String.raw`${LINE_PREFIX}(?<exception>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Interrupt))(?:\([\w.]{1,100}\))?(?::\s*(?<message>\S[^\n]{0,300})[^\n]*)?\s*$`,
    // Case-sensitive: an exception class is CamelCase, a metric line "eval_error: 0.03" is not one.
    flags: '',
    error_type: 'exception',
    severity: 'error',
    subsystem: 'python',
    priority: 10,
  },
  {
    name: 'config_error',
    // Hydra and OmegaConf report a bad config without a Python traceback: OmegaConf's error block names the key
    // and its type ("full_key: task.data" … "object_type=dict"), Hydra points at HYDRA_FULL_ERROR.
    pattern: String.raw`^\s*full_key: \S|HYDRA_FULL_ERROR=1 for a complete stack trace`,
    requires: String.raw`object_type=|HYDRA_FULL_ERROR`,
    flags: 'im',
    error_type: 'exception',
    severity: 'error',
    subsystem: 'python',
    priority: 11,
  },
  {
    name: 'training_refused',
    // A trainer that validates its inputs first (datasets, labels, config) refuses to start in its own words, with
    // no Python traceback: the same configuration fails the same way on a restart.
    pattern: String.raw`\b(?:can ?not|can't|unable to|failed to|could not|refus(?:es|ed|ing) to) (?:start|begin|launch) (?:the )?training\b`,
    error_type: 'exception',
    severity: 'error',
    subsystem: 'python',
    priority: 11,
  },
  {
    name: 'cpp_exception',
    pattern: String.raw`terminate called after throwing an instance of '(?<exception>[^'\n]{1,200})'`,
    error_type: 'exception',
    severity: 'error',
    subsystem: 'process',
    priority: 12,
  },
  {
    name: 'traceback',
    // A traceback whose last line the excerpt lost still says the program raised; anything specific wins.
    pattern: String.raw`^\s*Traceback \(most recent call last\):`,
    error_type: 'exception',
    severity: 'error',
    subsystem: 'python',
    priority: 5,
  },
  {
    name: 'script_not_found',
    pattern: String.raw`can't open file '[^'\n]{1,300}': \[Errno 2\]`,
    error_type: 'exception',
    severity: 'error',
    subsystem: 'python',
    priority: 15,
  },
  {
    name: 'segfault',
    pattern: String.raw`Segmentation fault|\bSIGSEGV\b|exitcode\s*:\s*-11\b|Fatal Python error`,
    error_type: 'exception',
    severity: 'error',
    subsystem: 'process',
    priority: 20,
  },
];
