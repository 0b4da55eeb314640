import { describe } from 'vitest';
import { itClassifiesEachRow, itStaysHealthy, type SignalRow } from '../../support/classifyRows.js';

// Thirteenth blind round (hardware, memory, disk, NCCL, EFA): messages enumerated from the source of the software that
// prints them (NVIDIA's open kernel modules and UVM driver, DCGM's failure messages, NCCL's WARNs, aws-ofi-nccl, the
// kernel's OOM killer, SLURM's cgroup and accounting plugins, the kubelet's eviction manager, the Gaudi bridge), with
// plausible values filled into the template. Synthetic lines, never corpus excerpts, never counted as accuracy.
const N = 'node1:2041:2107 [0]';
const OFI = 'ip-10-0-0-1:2041:2107 [0]';
const FAILURES: readonly SignalRow[] = [
  // NVIDIA driver: the GSP firmware stops answering, the recovery action rises above None.
  [
    'gpu_xid',
    'gpu_lost',
    'NVRM: Timeout after 45s of waiting for RPC response from GPU0 GSP! Expected function 10 (FREE) sequence 7 (0x0 0x0).',
  ],
  [
    'gpu_xid',
    'gpu_lost',
    'NVRM: GPU1 sanity check failed 0xffff waiting for RPC response from GSP. Expected function 76 (GSP_RM_CONTROL) sequence 9 (0x0 0x0).',
  ],
  [
    'gpu_xid',
    'gpu_lost',
    'NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:3b:00 (printing 1 of every 30).  The GPU likely needs to be reset.',
  ],
  ['gpu_xid', 'gpu_lost', 'NVRM: GSP RM heartbeat timed out'],
  ['gpu_xid', 'gpu_lost', 'NVRM: =============== GSP-RM unresponsive =================='],
  ['gpu_xid', 'gpu_lost', 'NVRM: Max GSP-RM boot attempts exceeded: 3/3'],
  ['gpu_xid', 'gpu_lost', 'NVRM: GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)'],
  ['gpu_xid', 'gpu_lost', 'GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)'],
  // DCGM's failure messages for a GPU that needs a reset, a fatal NVSwitch error.
  ['gpu_xid', 'gpu_lost', 'GPU 3 requires a reset to recover from a fault. Recovery action: 1 (GPU_RESET).'],
  [
    'gpu_xid',
    'gpu_lost',
    'GPU 3 operating at reduced capacity due to a fault. Recovery action: 4 (DRAIN_AND_RESET).',
  ],
  ['gpu_xid', 'gpu_lost', 'Detected fatal NvSwitch SXID 12028'],
  ['gpu_xid', 'gpu_lost', 'NVRM: GPU 0000:3b:00.0: GPU does not have the necessary power cables connected.'],
  // amdgpu's RAS: uncorrectable errors counted in any block.
  [
    'ecc_error',
    'gpu_ecc_uncorrectable',
    'amdgpu 0000:c1:00.0: amdgpu: 2 uncorrectable hardware errors detected in gfx block',
  ],
  // ECC: the UVM driver, a GSP unit's ECC under its own Xid, DCGM's retired pages, remapped rows, memory test.
  [
    'ecc_error',
    'gpu_ecc_uncorrectable',
    'nvidia-uvm: uvm_gpu.c:1402 ECC error encountered, GPU 0000:3b:00.0',
  ],
  [
    'ecc_error',
    'gpu_ecc_uncorrectable',
    'NVRM: Xid (PCI:0000:3b:00): 140, pid=1, GSP-RISCV uncorrectable ECC error',
  ],
  [
    'ecc_error',
    'gpu_ecc_uncorrectable',
    'NVRM: Xid (PCI:0000:3b:00): 140, GSP-RISCV, Uncorrectable SRAM error',
  ],
  ['ecc_error', 'gpu_ecc_uncorrectable', 'A pending retired page has been detected in GPU 0.'],
  ['ecc_error', 'gpu_ecc_uncorrectable', '60 or more retired pages have been detected in GPU 2. '],
  [
    'ecc_error',
    'gpu_ecc_uncorrectable',
    'An excess of 60 retired pages due to DBEs have been detected and more than one page has been retired due to DBEs in the past week in GPU 2.',
  ],
  ['ecc_error', 'gpu_ecc_uncorrectable', 'GPU 1 had uncorrectable memory errors and 3 rows were remapped'],
  [
    'ecc_error',
    'gpu_ecc_uncorrectable',
    'GPU 2 exceeded uncorrectable row remap limit with 512 remapped rows',
  ],
  ['ecc_error', 'gpu_ecc_uncorrectable', 'Found 12 faulty memory elements on GPU 3'],
  // GPU memory: CUDA libraries' allocation statuses, NCCL's cudaMalloc, torch's memory fraction, Gaudi, Neuron.
  ['oom', 'cuda_oom_other', 'RuntimeError: cuFFT error: CUFFT_ALLOC_FAILED'],
  [
    'oom',
    'cuda_oom_other',
    'RuntimeError: cusolver error: CUSOLVER_STATUS_ALLOC_FAILED, when calling `cusolverDnCreate(handle)`',
  ],
  ['oom', 'cuda_oom_other', `${N} NCCL WARN Failed to CUDA malloc 33554432 bytes`],
  ['oom', 'cuda_oom_other', 'Allocation on device 0 would exceed allowed memory. (out of memory)'],
  [
    'oom',
    'cuda_oom_other',
    '[Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for size::1073741824 (1024)MB',
  ],
  ['oom', 'cuda_oom_other', 'CS_POOL:: out of memory, when trying to extend high meory for size::4096'],
  [
    'oom',
    'cuda_oom_other',
    'ERROR NCC_EOOM001: The combined memory needed for the model tensors exceeds the high-bandwidth memory limit.',
  ],
  // Host memory: the kernel's panics and constrained kills, SLURM's accounting, cgroup v2's memory.events.
  [
    'cpu_oom_killed',
    'host_oom_kill',
    'Kernel panic - not syncing: Out of memory and no killable processes...',
  ],
  [
    'cpu_oom_killed',
    'host_oom_kill',
    'Kernel panic - not syncing: Out of memory: system-wide panic_on_oom is enabled',
  ],
  ['cpu_oom_killed', 'host_oom_kill', 'Kernel panic - not syncing: System is deadlocked on memory'],
  ['cpu_oom_killed', 'host_oom_kill', 'No available memory in cpuset: Killed process 4321 (python).'],
  [
    'cpu_oom_killed',
    'host_oom_kill',
    'slurmstepd: Job 123 exceeded virtual memory limit (9000000 > 8000000), being killed',
  ],
  ['cpu_oom_killed', 'host_oom_kill', 'slurmstepd: task 3 (4321) Out Of Memory (OOM)'],
  ['cpu_oom_killed', 'host_oom_kill', 'low 0\nhigh 0\nmax 12\noom 3\noom_kill 3\noom_group_kill 0'],
  [
    'cpu_oom_killed',
    'host_oom_kill',
    'Warning  SystemOOM  3m  kubelet  System OOM encountered, victim process: python, pid: 4321',
  ],
  // Disk: the kubelet's eviction messages and disk reclaim events.
  [
    'disk_full',
    'disk_full',
    'Message: Pod ephemeral local storage usage exceeds the total limit of containers 10Gi. ',
  ],
  [
    'disk_full',
    'disk_full',
    'Message: Container trainer exceeded its local ephemeral storage limit "20Gi". ',
  ],
  ['disk_full', 'disk_full', 'Message: Usage of EmptyDir volume "cache" exceeds the limit "50Gi". '],
  ['disk_full', 'disk_full', 'The node was low on resource: inodes. Threshold quantity: 5%, available: 1%. '],
  [
    'disk_full',
    'disk_full',
    'Warning  EvictionThresholdMet  kubelet  Attempting to reclaim ephemeral-storage',
  ],
  [
    'disk_full',
    'disk_full',
    'Warning  FreeDiskSpaceFailed  kubelet  failed to garbage collect required amount of images. Attempted to free 2000000000 bytes, but only found 0 bytes eligible to free.',
  ],
  // NCCL's WARNs before an error code: internal checks, mismatches between ranks, rejected arguments, no network.
  ['nccl', 'nccl_error', `${N} NCCL WARN Internal error : tree already has 3 children (1 2 3)`],
  [
    'nccl',
    'nccl_error',
    `${N} NCCL WARN Mismatched NCCL version detected : rank 0 version 21803 rank 4 version 21903`,
  ],
  [
    'nccl',
    'nccl_error',
    `${N} NCCL WARN NCCL version mismatch with remote peer 10.0.0.2<4567> (local: 2.21.5, remote 2.18.1)`,
  ],
  [
    'nccl',
    'nccl_error',
    `${N} NCCL WARN Bootstrap Root : mismatch in info from procs, nranks 8 vs 16, nroots 1 vs 1, iroot 0 vs 0, offset 0 vs 0`,
  ],
  [
    'nccl',
    'nccl_error',
    `${N} NCCL WARN Detected mixed local Net device counts across ranks (min 4, max 8). Set NCCL_IGNORE_NET_MISMATCH=1 to continue`,
  ],
  ['nccl', 'nccl_error', `${N} NCCL WARN Failed to initialize any NET plugin`],
  ['nccl', 'nccl_error', `${N} NCCL WARN AllReduce : invalid type 9`],
  ['nccl', 'nccl_error', `${N} NCCL WARN Broadcast : invalid root 8 (root should be in the 0..7 range)`],
  ['nccl', 'nccl_error', `${N} NCCL WARN Invalid rank requested : 8/8`],
  ['nccl', 'nccl_error', `${N} NCCL WARN Invalid config blocking attribute value 2`],
  [
    'nccl',
    'nccl_error',
    `${N} NCCL WARN Allocation failed. No suitable space found to accommodate size=0x4000 within limit=0x1000`,
  ],
  ['nccl', 'nccl_error', `${N} NCCL WARN Thread creation failed: Resource temporarily unavailable`],
  ['nccl', 'nccl_error', `${N} NCCL WARN GDRCOPY failure -22`],
  ['nccl', 'nccl_error', `${N} NCCL WARN Could not find any local path from gpu 0 to net.`],
  // aws-ofi-nccl's start-up failures, after which NCCL uses its internal transports.
  ['efa_fallback', 'efa_plugin_unusable', `${OFI} NCCL WARN NET/OFI Initializing plugin failed`],
  ['efa_fallback', 'efa_plugin_unusable', `${OFI} NCCL WARN NET/OFI Failed to initialize rdma protocol`],
  ['efa_fallback', 'efa_plugin_unusable', `${OFI} NCCL WARN NET/OFI Failed to initialize sendrecv protocol`],
  [
    'efa_fallback',
    'efa_plugin_unusable',
    `${OFI} NCCL WARN NET/OFI Couldn't open a fabric provider. RC: -22, ERROR: Invalid argument`,
  ],
  [
    'efa_fallback',
    'efa_plugin_unusable',
    `${OFI} NCCL WARN NET/OFI Couldn't create fabric. RC: -61, ERROR: No data available`,
  ],
  [
    'efa_fallback',
    'efa_plugin_unusable',
    `${OFI} NCCL WARN NET/OFI EFA provider requires at least libfabric version 1.22.0.`,
  ],
  ['efa_fallback', 'efa_plugin_unusable', `${OFI} NCCL WARN NET/OFI Insufficient Libfabric devices found`],
  [
    'efa_fallback',
    'efa_plugin_unusable',
    `${OFI} NCCL INFO Failed to initialize NET plugin Libfabric\n${OFI} NCCL INFO Using network Socket`,
  ],
];

const HEALTHY: readonly string[] = [
  // The driver's slow-RPC warning and loading banner; a recovery action back to None.
  'NVRM: Slow RPC response from GPU0 GSP (2345us). Function 76 (GSP_RM_CONTROL) sequence 9 (0x0 0x0).',
  'NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15\nNVRM: GPU at PCI:0000:3b:00: GPU-1234-5678',
  'GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)',
  // nvidia-smi -q counters at zero, ECC enabled; DCGM skipping a test; a non-fatal NVSwitch SXid.
  [
    '    ECC Mode',
    '        Current                           : Enabled',
    '    ECC Errors',
    '        Volatile',
    '            DRAM Uncorrectable            : 0',
    '    Retired Pages',
    '        Pending Page Blacklist            : N/A',
    '    Remapped Rows',
    '        Uncorrectable Error               : 0',
    '        Pending                           : No',
    '        Remapping Failure Occurred        : No',
  ].join('\n'),
  '    Xid errors: 0',
  'Skipping test memtest because ECC is not enabled on GPU 0',
  'nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): 20034, Non-fatal, LTSSM Fault Up Link 32',
  'amdgpu 0000:c1:00.0: amdgpu: 3 correctable hardware errors detected in umc block',
  'amdgpu 0000:c1:00.0: amdgpu: 0 uncorrectable hardware errors detected in umc block',
  // Allocator settings and statistics.
  'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128',
  '|            CUDA OOMs: 0            |        cudaMalloc retries: 0         |',
  'max memory allocated: 35.2 GiB, reserved: 40.1 GiB, num_alloc_retries: 0, num_ooms: 0',
  // cgroup v2 memory.events with nothing killed; sysctl settings; SLURM's "may or may not" note.
  'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0',
  'vm.panic_on_oom = 0\nvm.oom_kill_allocating_task = 0',
  'slurmstepd: StepId=123.0 hit memory limit at least once during execution. This may or may not result in some failure.',
  // A node's conditions with no pressure; df with room.
  '  MemoryPressure   False   KubeletHasSufficientMemory   kubelet has sufficient memory available\n  DiskPressure     False   KubeletHasNoDiskPressure     kubelet has no disk pressure',
  // NCCL INFO lines of a job that got EFA, and of one on InfiniBand with no plugin.
  [
    `${OFI} NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.9.1-aws`,
    `${OFI} NCCL INFO NET/OFI Using Libfabric version 1.19`,
    `${OFI} NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 4 nics)`,
    `${OFI} NCCL INFO NET/OFI Could not disable CUDA API usage for HMEM, disabling GDR`,
    `${OFI} NCCL INFO Initialized NET plugin Libfabric`,
    `${OFI} NCCL INFO Using network Libfabric`,
  ].join('\n'),
  `${N} NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file.\n${N} NCCL INFO Using network IB`,
  `${N} NCCL INFO comm 0x55 rank 0 nranks 8 cudaDev 0 busId 1a000 commId 0x1234 - Init COMPLETE`,
];

describe('the thirteenth blind round: hardware, memory, disk, NCCL and EFA messages from their emitters', () => {
  itClassifiesEachRow(FAILURES);
});

describe('the thirteenth blind round: hardware, memory, NCCL and EFA look-alikes that stay healthy', () => {
  itStaysHealthy(HEALTHY);
});
