import type { SignalInput } from '../schema.js';

/** Collective communication: NCCL errors, watchdog and process-group timeouts, the network under them. */
export const NCCL_SIGNALS: readonly SignalInput[] = [
  {
    name: 'nccl_watchdog_timeout',
    pattern: String.raw`Watchdog caught collective operation timeout(?::\s*WorkNCCL\(SeqNum=(?<seq>\d+), OpType=(?<op_type>\w+)[^)]*?Timeout\(ms\)=(?<timeout_ms>\d+)\) ran for (?<ran_ms>\d+) milliseconds)?`,
    error_type: 'watchdog_timeout',
    severity: 'critical',
    subsystem: 'nccl',
    priority: 52,
  },
  {
    name: 'nccl_timeout',
    // torch 2.4+ names the NCCL work that timed out ("Timeout at NCCL work: 5021, last enqueued …") without the
    // watchdog's sentence.
    // Any collective library (NCCL, RCCL, MCCL/ctran, torchcomms) aborting its communicator because a wait timed out.
    pattern: String.raw`\bcomm(?:unicator)?s? (?:was |were |is |been )?abort(?:ed|ing) (?:due to|because of|after|on) (?:a |the )?(?:time ?out|timed out)|Timeout at NCCL work: -?\d+|NCCL (?:communicator was aborted|operation timed out|timeout)|\bncclTimeout\b|Timed out waiting for NCCL|timed out in blocking wait|NCCL[^\n]{0,300}timed out after`,
    error_type: 'nccl_timeout',
    severity: 'critical',
    subsystem: 'nccl',
    priority: 50,
  },
  {
    name: 'process_group_timeout',
    pattern: String.raw`DistStoreError: (?:Timed out|Socket Timeout|wait timeout)|Timed out initializing process group|Timed out after \d+ seconds waiting for clients|RendezvousTimeoutError|ProcessGroupGloo[^\n]{0,300}[Tt]imed out|Timed out waiting \d+ms for (?:recv|send) operation|client socket has timed out|Socket Timeout|connect\(\) timed out|gloo[^\n]{0,300}(?:Connect timeout|[Tt]imed out)|store[ _-]based barrier[^\n]{0,300}[Tt]imed out|\bApplication timeout caused pair closure\b|\bmonitored_?barrier\b[^\n]{0,100}\b(?:timed out|timeout)|TCPStore[^\n]{0,300}[Tt]imed out|\[c10d\][^\n]{0,300}\b(?:timed out|timeout) after \d|wait timeout after \d+\s*ms|failed to pass monitoredBarrier|rendezvous[^\n]{0,100}timed out|Timed out waiting for (?:all )?(?:workers|tasks|hosts|ranks|clients)\b|\bbarrier\b[^\n]{0,100}\btimed out\b|(?:coordination service|CoordinationService)[^\n]{0,200}(?:DEADLINE_EXCEEDED|Deadline Exceeded)|\b(?:Timeout|Timed out) waiting for (?:the )?key\b|\bwaiting for key\b[^\n]{0,100}\btim(?:ed ?out|eout)\b|\bmonitoredBarrier\b[^\n]{0,100}\breceived errors\b|\b(?:PMIx?\w{0,20}|KVS_Fence|PMI_Barrier)\b[^\n]{0,100}\b(?:timed out|timeout)\b`,
    // A store read that waited for a key nobody wrote, a monitored barrier whose peers failed to report, PMI/PMIx's
    // key-value fence or barrier timing out under MPI and srun: some peer never reached set-up.
    // JAX/XLA's coordination service (its distributed initialise) says DEADLINE_EXCEEDED when a task never registers.
    // Any barrier of a launcher or coordination service that timed out (JAX's "Barrier timed out", a store's):
    // some peer never arrived at set-up.
    error_type: 'distributed_timeout',
    severity: 'critical',
    subsystem: 'distributed',
    priority: 48,
  },
  {
    name: 'rendezvous_closed',
    // torchelastic closes the rendezvous when an agent shuts the job down (its pod deleted, its node reclaimed,
    // the agent told to stop); the agents left see RendezvousClosedError. Stopped from outside: a restart helps.
    pattern: String.raw`\bRendezvousClosedError\b`,
    error_type: 'cancelled_preempted',
    severity: 'error',
    subsystem: 'scheduler',
    priority: 50,
  },
  {
    name: 'nccl_error',
    pattern: String.raw`NCCL error(?: in: [^,\s]+)?(?:,\s*(?<nccl_error>[^,]{3,80}?)(?:\s*\(run with|, NCCL version|$))?|\bnccl(?<nccl_code>SystemError|InternalError|UnhandledCudaError|InvalidUsage|InvalidArgument|RemoteError)\b|\bnccl[A-Z]\w{0,40}(?:\([^)\n]{0,200}\))? failed: (?:unhandled|internal|invalid|remote|system)|NCCL WARN Cuda failure|NCCL WARN Call to \w+ failed|NET/IB\s*:\s*Got completion[^\n]{0,200}with (?:error|status)|NCCL WARN (?:Duplicate GPU detected|Error\s?:|\[Service thread\] Error|[^\n]{0,200}\bres=[1-6]\b)`,
    // A CUDA fault that NCCL merely reports (its kernels hit an illegal address) is the CUDA error's own.
    unless: String.raw`illegal memory access|device-side assert`,
    fields: ['nccl_error', 'nccl_code'],
    error_type: 'nccl',
    severity: 'critical',
    subsystem: 'nccl',
    priority: 45,
  },
  {
    name: 'nccl_error_trace',
    // NCCL logs the return code up its call stack ("NCCL INFO init.cc:1303 -> 2"): 1-6 are errors
    // (unhandled cuda, system, internal, invalid argument, invalid usage, remote); 7 is only "in progress".
    pattern: String.raw`NCCL INFO [\w/.-]{1,100}\.(?:cc|h|cpp):\d+ -> (?<nccl_code>[1-6])\b`,
    // Code 1 up the stack after a CUDA fault is that fault travelling, not an NCCL failure of its own.
    excludes: String.raw`an illegal memory access was encountered|device-side assert triggered`,
    error_type: 'nccl',
    severity: 'error',
    subsystem: 'nccl',
    priority: 40,
  },
  {
    name: 'dist_backend_error',
    pattern: String.raw`DistBackendError`,
    error_type: 'nccl',
    severity: 'error',
    subsystem: 'nccl',
    priority: 44,
  },
  {
    name: 'nccl_failed_or_timed_out',
    pattern: String.raw`Some NCCL operations have failed or timed out`,
    error_type: 'nccl',
    severity: 'error',
    subsystem: 'nccl',
    priority: 30,
  },
  {
    name: 'efa_plugin_error',
    pattern: String.raw`NET/OFI[^\n]{0,300}(?:[Ff]ailed|Couldn't|Could not|Unable|error)|\bfi_\w+ (?:failed|returned error)`,
    unless: String.raw`NCCL INFO`,
    // A plugin that fails to start makes NCCL fall back to sockets: slower, not (by itself) a failure.
    error_type: null,
    severity: 'warning',
    subsystem: 'network',
    priority: 3,
  },
  {
    name: 'connection_lost',
    pattern: String.raw`Connection reset by peer|Connection refused|Connection closed by (?:remote |foreign )?(?:peer|host|server)|\bBroken pipe\b|\bECONNRESET\b|\bECONNREFUSED\b|Software caused connection abort|No route to host|Network is unreachable|NET/IB\s*:\s*Got completion[^\n]{0,200}with (?:error|status)\s*=?\s*(?:IBV_WC_\w{1,30}\()?(?:12|13)\b|\bIBV_WC_(?:RNR_)?RETRY_EXC_ERR\b|NET/IB\s*:\s*Got async event\s*:\s*(?:local catastrophic error|port error|[\w ]{0,40}(?:catastrophic|fatal) error|CQ error)|IBV_EVENT_(?:DEVICE_FATAL|PORT_ERR|QP_FATAL|CQ_ERR)\b|transport retry counter exceeded|remote process exited or there was a network error|\bncclRemoteError\b|Connection timed out|\bETIMEDOUT\b|NET/Socket\s*:\s*socket progress error|\bsocketProgress\w{0,10}: [^\n]{0,100}(?:failed|closed)|\bfi_cq_readerr\b|(?:Unreachable remote|Remote unreachable)\b|NET/OFI[^\n]{0,100}\bRequest\b[^\n]{0,200}\berror\b|\bUCX\s{1,4}ERROR\b[^\n]{0,200}(?:timed? ?out|unreachable|reset by|retry count|Input/output error|Connection|peer failure)|\bmlx\d\w{0,10}:[^\n]{0,100}\bgot completion with error\b|\bfailed to connect to all addresses\b|StatusCode\.UNAVAILABLE\b|\b(?:ORTE|PRR?TE|MPI\w{0,10}|mpirun|Hydra\w{0,10}) has lost communication with\b|\blost (?:communication|connection|contact) with (?:its |a |the )?(?:remote )?(?:daemon|peer|node|host|rank|worker)s?\b|\bcommlib error: got read error\b|\[Errno (?:32|101|103|104|107|111|112|113)\]|\berrno[ :=]{1,3}(?:104|111|113)\b|\b(?:EPIPE|ECONNABORTED|EHOSTUNREACH|ENETUNREACH|ENOTCONN|EHOSTDOWN|ENETDOWN)\b|\bTransport endpoint is not connected\b|\bHost is down\b|\bNetwork is down\b|\bConnection was likely closed\b|\b-?FI_E(?:HOSTUNREACH|CONNRESET|CONNREFUSED|NETUNREACH|CONNABORTED)\b|"grpc_status":\s?14\b|\b(?:peer|remote)(?: process| host| node| end)? (?:has |have )?(?:unexpectedly |abruptly )?(?:disconnected|hung up|closed (?:the )?connection)\b|\bName or service not known\b|\bTemporary failure in name resolution\b|\bnodename nor servname provided\b|\bgetaddrinfo(?:\(\))? failed\b|\bCould not resolve host\b|\[Errno -[235]\]`,
    // A peer that disconnected in its runtime's words (Open MPI: "peer process has unexpectedly disconnected"), and a
    // peer's name that did not resolve (glibc's and macOS's getaddrinfo messages, Python's gaierror numbers): no path.
    // The socket errors by number and errno name as Linux defines them (32 EPIPE, 101 ENETUNREACH, 103 ECONNABORTED,
    // 104 ECONNRESET, 107 ENOTCONN, 111 ECONNREFUSED, 112 EHOSTDOWN, 113 EHOSTUNREACH), libfabric's -FI_E* codes,
    // torch's TCPStore "got 0 bytes. Connection was likely closed", gRPC's status 14 (UNAVAILABLE) in its JSON form.
    // ncclRemoteError is NCCL's code for "a network error or a remote process exiting prematurely" (its documentation):
    // the peer or the path to it, like the sentence NCCL prints with it.
    // MPI runtimes (Open MPI's ORTE/PRRTE, Hydra) and Grid Engine's commlib say they lost a daemon or a peer.
    // UCX (Open MPI, UCC, Ray's transports) reports a lost peer as an endpoint timeout, an unreachable destination or
    // a reset connection; mlx5's verbs provider prints a failed completion itself; gRPC (JAX's coordination service,
    // Ray, TF) says UNAVAILABLE when the peer's socket is gone.
    // A client that retries says so on the same line ("… Connection refused). Retrying.", c10d's "[W socket.cpp]"
    // warnings, huggingface_hub's "thrown while requesting"): a retry that may well succeed, not a failure. A
    // failure still ends in an error line of its own.
    unless: String.raw`\bretrying\b|\bRetry \d|will retry|thrown while requesting|^\s*(?:\[rank\d+\]:\s*)?(?:\[W[\d ]|W\d{4} \d\d:)`,
    error_type: 'communication',
    severity: 'error',
    subsystem: 'network',
    // IB completion status 12/13 is "retry counter exceeded": the peer stopped answering (other statuses, such
    // as 4, a local protection error, are NCCL's or the HCA's own and stay nccl). NCCL's socket transport and the
    // EFA provider (libfabric's completion-queue errors, "Unreachable remote", a failed OFI request) lose a peer
    // the same way; ETIMEDOUT is a connection nobody answered. An IB async event (a port down, the HCA's "local
    // catastrophic error") is the fabric failing under NCCL.
    // Above the generic NCCL error: "NCCL error … Last error: Connection reset by peer" is a network fault,
    // and the network action (check EFA, security groups, NCCL_SOCKET_IFNAME) is the useful one.
    priority: 46,
  },
  {
    name: 'efa_provider_fallback',
    // The OFI plugin loaded but picked a provider other than EFA (tcp, sockets): NCCL runs over TCP.
    pattern: String.raw`NET/OFI Selected [Pp]rovider is (?!efa\b)(?<provider>[\w;]+)`,
    error_type: 'efa_fallback',
    severity: 'warning',
    subsystem: 'network',
    priority: 30,
  },
  {
    name: 'efa_plugin_unusable',
    // The OFI plugin found no EFA provider (or none at all) and gave up: NCCL falls back to sockets.
    pattern: String.raw`NET/OFI[^\n]{0,300}(?:Only EFA provider is supported|initialization failed|Couldn't find any optimal provider|fi_getinfo\(\) call failed|OFI NCCL failure|No eligible providers?)|fi_getinfo: -61\b|(?:Can't|Cannot|Could not|Unable to) find (?:a |any )?provider[^\n]{0,40}\befa\b|\bno providers? (?:found|available)[^\n]{0,40}\befa\b`,
    error_type: 'efa_fallback',
    severity: 'warning',
    subsystem: 'network',
    priority: 29,
  },
  {
    name: 'nccl_socket_fallback',
    // NCCL quietly drops to TCP sockets when the OFI plugin fails to load; that is only wrong where EFA was
    // meant to be used, which the same log tells by mentioning the OFI plugin or the EFA provider.
    // Newer NCCL says "NET/Plugin: Could not find: libnccl-net.so" / "Using internal network plugin", or fails to find
    // the net plugin's symbol (the CollNet symbol missing is normal: most plugins have none).
    pattern: String.raw`NET/Socket\s*:\s*Using|Using network Socket|NET/Plugin\s*:\s*No plugin found|NET/Plugin\s*:\s*Could not find:? \S*libnccl-net|Using internal network plugin|NET/Plugin\s*:\s*Failed to find ncclNetPlugin_v\d`,
    requires: String.raw`NET/OFI|aws-ofi-nccl|libnccl-net-ofi\.so|FI_PROVIDER["']?\s*[:=]\s*["']?efa|provider:? efa|OFI plugin|\bFI_EFA_[A-Z_]{2,40}|/opt/amazon/efa\b`,
    error_type: 'efa_fallback',
    severity: 'warning',
    subsystem: 'nccl',
    priority: 28,
    description:
      'NCCL uses TCP sockets although an EFA (OFI) plugin was expected: slow, and a sign of a broken setup',
  },
  {
    name: 'nccl_warn',
    pattern: String.raw`\bNCCL WARN\b\s*(?<message>[^\n]{0,200})`,
    error_type: null,
    severity: 'warning',
    subsystem: 'nccl',
    priority: 1,
  },
];
