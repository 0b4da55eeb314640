import { describe } from 'vitest';
import { itClassifiesEachRow, itStaysHealthy, type SignalRow } from '../../support/classifyRows.js';

// Thirteenth blind round: the messages a set-up timeout or a lost peer produces, enumerated from the source of the
// software that prints them (pytorch c10d and torchelastic, gloo, NCCL, Horovod, Ray, Open MPI, UCX), with plausible
// values in each template's variables. Synthetic lines, never corpus excerpts, never counted as accuracy; each row
// names the signal it exercises. A set-up or store timeout is distributed_timeout; a dropped peer is communication.
const SETUP_TIMEOUTS: readonly SignalRow[] = [
  // c10d socket.cpp / TCPStore.cpp: the connect loop's final timeout, a store wait, the server's wait for its clients.
  [
    'distributed_timeout',
    'process_group_timeout',
    'torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to connect to (10.0.0.1, 29500).',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    '[E socket.cpp:957] [c10d] The client socket has timed out after 900s while trying to connect to (master-0, 29500).',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'torch.distributed.DistStoreError: wait timeout after 1800000ms, keys: /default_pg/0//cuda//0',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.',
  ],
  ['distributed_timeout', 'process_group_timeout', 'torch.distributed.DistStoreError: Socket Timeout'],
  // ProcessGroupNCCL's unique-ID exchange through the store, when the store read times out.
  [
    'distributed_timeout',
    'process_group_timeout',
    "torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout",
  ],
  // ProcessGroupGloo's monitored barrier, distributed_c10d's store-based barrier, torchelastic's barriers.
  [
    'distributed_timeout',
    'process_group_timeout',
    'RuntimeError: [Rank 0]: Ranks 1, 3 failed to pass monitoredBarrier in 1800000 ms',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'RuntimeError: Timed out initializing process group in store based barrier on rank 3, for key: store_based_barrier_key:1 (world_size=8, num_workers_joined=7, timeout=0:30:00)',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'torch.distributed.DistStoreError: Timed out waiting on barrier on rank 2, for key prefix: torchelastic/agent/terminal_state (world_size=4, timeout=0:05:00)',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError',
  ],
  [
    'distributed_timeout',
    'peers_never_joined',
    '[ERROR] Error waiting on exit barrier. Elapsed: 300.0 seconds',
  ],
  // torchelastic's etcd store and handler.
  [
    'distributed_timeout',
    'setup_timeout_emitted',
    'LookupError: Timeout while waiting for keys in EtcdStore',
  ],
  [
    'distributed_timeout',
    'setup_timeout_emitted',
    'LookupError: Key /torchelastic/p2p/run_1/rdzv/v_1/rank_0 not found in EtcdStore',
  ],
  [
    'distributed_timeout',
    'setup_timeout_emitted',
    'RuntimeError: Rendezvous timeout occurred in EtcdRendezvousHandler',
  ],
  // gloo: a pair's I/O timeout names the peer; the store wait; the unbound buffer; the connect loop's give-up.
  [
    'distributed_timeout',
    'setup_timeout_emitted',
    'RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:520] Read timeout [10.0.0.2]:31234',
  ],
  [
    'distributed_timeout',
    'setup_timeout_emitted',
    'RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:314] Write timeout [10.0.0.2]:31234',
  ],
  [
    'distributed_timeout',
    'setup_timeout_emitted',
    'RuntimeError: [../third_party/gloo/gloo/transport/ibverbs/buffer.cc:144] Send timeout [10.0.0.2]:31234',
  ],
  [
    'distributed_timeout',
    'setup_timeout_emitted',
    'RuntimeError: [../third_party/gloo/gloo/transport/ibverbs/pair.cc:269] Timeout waiting for memory region from [10.0.0.2]:31234',
  ],
  [
    'distributed_timeout',
    'setup_timeout_emitted',
    'RuntimeError: timed out connecting: SocketError: [../third_party/gloo/gloo/transport/tcp/socket.cc:142] connect: Connection refused',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.h:311] Connect timeout [10.0.0.2]:31234',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'RuntimeError: [../third_party/gloo/gloo/rendezvous/file_store.cc:152] Wait timeout for key(s): ["rank_3"]',
  ],
  // Ray's collective groups (util/collective) and Ray Train's worker group start.
  [
    'distributed_timeout',
    'setup_timeout_emitted',
    'RuntimeError: Unable to meet other processes at the rendezvous store. If you are using P2P communication, please check if tensors are put in the correct GPU.',
  ],
  [
    'distributed_timeout',
    'setup_timeout_emitted',
    'RuntimeError: Unable to get the NCCLUniqueID from the store.',
  ],
  [
    'distributed_timeout',
    'process_group_timeout',
    'WorkerGroupStartupTimeoutError: The worker group startup timed out after 30.0 seconds waiting for 4 workers.',
  ],
  // Horovod's launcher and its gloo HTTP rendezvous store.
  [
    'distributed_timeout',
    'setup_timeout_emitted',
    'Exception: Timed out waiting for Task to task address check. Please check connectivity between servers. You may need to increase the --start-timeout parameter if you have too many servers.',
  ],
  [
    'distributed_timeout',
    'setup_timeout_emitted',
    '[1,0]<stderr>:[2024-01-01 00:00:00.000000: E /tmp/horovod/common/gloo/http_store.cc:96] HTTP GET request failed too many times, aborting. See exception message above.',
  ],
];

const PEERS_LOST: readonly SignalRow[] = [
  // NCCL's socket layer (misc/socket.cc, os/linux.cc) and its proxy.
  [
    'communication',
    'connection_lost',
    'node1:123:456 [0] misc/socket.cc:58 NCCL WARN socketProgress: Connection closed by remote peer node2.cluster<41234>',
  ],
  [
    'communication',
    'connection_lost',
    'node1:123:456 [0] misc/socket.cc:29 NCCL WARN socketProgressOpt: Call to recv from 10.0.0.2<41234> failed : Connection reset by peer',
  ],
  [
    'communication',
    'peer_lost_emitted',
    'node1:123:456 [0] misc/socket.cc:463 NCCL WARN socketStartConnect: exceeded retries (34)',
  ],
  [
    'communication',
    'peer_lost_emitted',
    'node1:123:456 [0] misc/socket.cc:521 NCCL WARN socketPollConnect: exceeded timeouts (10)',
  ],
  [
    'communication',
    'connection_lost',
    'node1:123:456 [0] os/linux.cc:288 NCCL WARN ncclSocketConnect: connect to 10.0.0.2<41234> returned Connection timed out, exceeded error retry count after 35 attempts',
  ],
  [
    'communication',
    'connection_lost',
    'node1:123:456 [0] os/linux.cc:362 NCCL WARN ncclOsSocketProgressOpt: Call to send to 10.0.0.2<41234> failed : Broken pipe',
  ],
  [
    'communication',
    'connection_lost',
    'node1:123:456 [0] transport/net_socket.cc:214 NCCL WARN NET/Socket : socket progress error',
  ],
  // NCCL's IB plugin: a completion whose retries ran out (also on its GIN path), every NIC of a connection failed.
  [
    'communication',
    'connection_lost',
    'node1:123:456 [0] transport/net_ib/p2p.cc:688 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<41234> with status=transport retry counter exceeded(12) opcode=SEND(0) vendor_err=129 hca mlx5_0',
  ],
  [
    'communication',
    'peer_lost_emitted',
    'node1:123:456 [0] transport/net_ib/gin.cc:749 NCCL WARN NET/IB/GIN: Got completion from peer 10.0.0.2<41234> with status=12 opcode=0 len=0 vendor err 129 (Send) hca mlx5_0',
  ],
  [
    'communication',
    'peer_lost_emitted',
    'node1:123:456 [0] transport/net_ib/p2p_resiliency.cc:64 NCCL WARN NET/IB: The error is fatal (No functional devices left). Cannot continue.',
  ],
  // "Detected 2 …" is a count of devices, not signal 2: it must not read as a Ctrl-C.
  [
    'communication',
    'peer_lost_emitted',
    'node1:123:456 [0] transport/net_ib/p2p_resiliency.cc:88 NCCL WARN NET/IB: Fatal error. Detected 2 failed devices out of 4 on rank 3.',
  ],
  // c10d's store client, when the store's host went away.
  [
    'communication',
    'connection_lost',
    'torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?',
  ],
  [
    'communication',
    'connection_lost',
    'torch.distributed.DistNetworkError: recvValue failed on SocketImpl(fd=50, addr=[node1]:45678, remote=[master]:29500): Connection reset by peer',
  ],
  [
    'communication',
    'connection_lost',
    'torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of (master-0, 29500). The client socket has failed to connect to [master-0]:29500 (errno: 113 - No route to host).',
  ],
  // gloo's TCP pair.
  [
    'communication',
    'peer_lost_emitted',
    'RuntimeError: [/opt/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:201] Socket unexpectedly closed [10.0.0.2]:31234',
  ],
  [
    'communication',
    'peer_lost_emitted',
    'RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:797] Socket closed [10.0.0.2]:31234',
  ],
  [
    'communication',
    'connection_lost',
    'RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:544] Connection closed by peer [10.0.0.2]:31234',
  ],
  [
    'communication',
    'connection_lost',
    'RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:535] Read error [10.0.0.2]:31234: Connection reset by peer',
  ],
  // Horovod's launcher, Open MPI (btl/tcp, bml/r2, MPI_Init, PRRTE), UCX, Ray's GCS.
  [
    'communication',
    'peer_lost_emitted',
    "RuntimeError: Horovod was unable to connect to driver service on any of the following addresses: {'eth0': [('10.0.0.1', 23456)]}.",
  ],
  [
    'communication',
    'connection_lost',
    'An MPI communication peer process has unexpectedly disconnected.  This usually indicates a failure in the peer process',
  ],
  [
    'communication',
    'connection_lost',
    'WARNING: Open MPI failed to TCP connect to a peer MPI process.  This should not happen.',
  ],
  [
    'communication',
    'peer_lost_emitted',
    'At least one pair of MPI processes are unable to reach each other for MPI communications.',
  ],
  [
    'communication',
    'peer_lost_emitted',
    'MPI_INIT has failed because at least one MPI process is unreachable from another.',
  ],
  ['communication', 'connection_lost', 'PRTE has lost communication with a remote daemon.'],
  [
    'communication',
    'connection_lost',
    '[node1][[1234,1],0][btl_tcp_frag.c:242:mca_btl_tcp_frag_recv] mca_btl_tcp_frag_recv: readv failed: Connection reset by peer (104)',
  ],
  [
    'communication',
    'peer_lost_emitted',
    '[1700000000.123456] [node1:1234:0]   ucp_worker.c:1783 UCX  ERROR   ucp_ep_set_failed: ep 0x7f12 error: Endpoint is not connected',
  ],
  ['communication', 'peer_lost_emitted', 'ucc_tl_ucp: send failed with status UCS_ERR_ENDPOINT_TIMEOUT'],
  [
    'communication',
    'connection_lost',
    '[1700000000.123456] [node1:1234:0]        ud_ep.c:278  UCX  ERROR   ud ep 0x7f12: unhandled timeout error',
  ],
  [
    'communication',
    'peer_lost_emitted',
    '[2024-01-01 00:00:00,000 E 1234 1234] gcs_rpc_client.h:552: Failed to connect to GCS within 60 seconds. GCS may have been killed.',
  ],
];

// What the same emitters print while all is well: retries announced as such, INFO progress, completed barriers.
const HEALTHY: readonly string[] = [
  '[I socket.cpp:482] [c10d] No socket on (master-0, 29500) is listening yet, will retry.',
  '[W socket.cpp:663] [c10d] The server socket on [master-0]:29500 has timed out, will retry.',
  '[W TCPStore.cpp:358] [c10d] TCP client failed to connect/validate to host master-0:29500 - retrying (try=0, timeout=1800000ms, delay=496ms): The client socket has timed out after 1800000ms while trying to connect to (master-0, 29500).',
  '[W socket.cpp:464] [c10d] waitForInput: poll for socket SocketImpl(fd=12, addr=[node1]:45678, remote=[master]:29500) returned 0, likely a timeout',
  'INFO:torch.distributed.distributed_c10d:Waiting in store based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 (world_size=8, num_workers_joined=7, timeout=0:30:00)',
  'INFO:torch.distributed.distributed_c10d:Rank 0: Completed store-based barrier for key:store_based_barrier_key:1 with 8 nodes.',
  '[/opt/gloo/gloo/transport/tcp/debug_logger.cc:12] ERROR failed to connect, willRetry=1, retry=0, retryLimit=3, rank=1, size=4, local=[10.0.0.1]:40123, remote=[10.0.0.2]:45678, error=SocketError: [../third_party/gloo/gloo/transport/tcp/socket.cc:142] connect: Connection refused',
  '[Gloo] Rank 1 is connected to 3 peer ranks. Expected number of connected peer ranks is : 3',
  'node1:123:456 [0] NCCL INFO ncclSocketConnect: connect to 10.0.0.2<41234> returned Connection refused, retrying (1/34) after sleep for 100 msec',
  'INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for workers. Result: restart_count=0 master_addr=node0 master_port=29500 group_rank=0 group_world_size=2',
  '+ horovodrun -np 16 -H node1:8,node2:8 --start-timeout 600 --gloo-timeout-seconds 120 python train.py',
  'Started a local Ray instance. View the dashboard at 127.0.0.1:8265',
];

describe('classify: set-up and store timeouts as their emitters print them', () => {
  itClassifiesEachRow(SETUP_TIMEOUTS);
});

describe('classify: peers and paths lost as their emitters print them', () => {
  itClassifiesEachRow(PEERS_LOST);
});

describe('classify: the same emitters while all is well', () => {
  itStaysHealthy(HEALTHY);
});
