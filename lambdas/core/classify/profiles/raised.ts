import type { SignalInput } from '../schema.js';
import { LINE_PREFIX } from './basic/patterns.js';

// The last line of a traceback: an optional module path, then the class ("torch.distributed.DistStoreError: …").
// torchelastic's error file and handler quote it inside JSON ('"message": "RendezvousConnectionError: …"').
const RAISED = String.raw`(?:${LINE_PREFIX}|"message":\s?")(?:[A-Za-z_]\w{0,40}\.){0,6}`;
const END = String.raw`(?::|\(|\s*$)`;

/**
 * A fallback layer: the class of the exception a process raised, mapped to the family its documentation gives it,
 * for logs whose message no specific signal knows. Priorities sit below every specific signal of the same family,
 * so any signal that reads the message (or a root cause of a higher family) wins. Case-sensitive: a class is
 * CamelCase, a metric or a sentence is not.
 */
export const RAISED_SIGNALS: readonly SignalInput[] = [
  {
    name: 'raised_connection_error',
    // Python's ConnectionError and its subclasses (a connection reset, refused or aborted by the peer, a broken
    // pipe: the other end went away); http.client's RemoteDisconnected (the server closed the connection); torch's
    // DistNetworkError ("a network error occurs in distributed"); TensorFlow's UnavailableError and an absl/XLA status
    // "UNAVAILABLE: …" (gRPC's code 14: the service, here a peer task, cannot be reached).
    pattern: String.raw`${RAISED}(?<exception>ConnectionResetError|ConnectionRefusedError|ConnectionAbortedError|BrokenPipeError|ConnectionError|RemoteDisconnected|DistNetworkError|UnavailableError)${END}|^[^\n]{0,80}\bUNAVAILABLE: \S`,
    // A connection that timed out is a peer that never came: the wait-timeout signal below says so. A retry may work.
    unless: String.raw`\b(?:timed out|timeout|retrying|will retry)\b`,
    flags: '',
    error_type: 'communication',
    severity: 'error',
    subsystem: 'network',
    priority: 12,
  },
  {
    name: 'raised_wait_timeout',
    // torch's DistStoreError (the c10d store, which only rendezvous and barriers use, failed: a peer never wrote its
    // key), Python's TimeoutError and socket.timeout (an operation waited past its deadline on another party), and
    // Ray's GetTimeoutError (ray.get timed out waiting for a task) and TensorFlow's DeadlineExceededError,
    // gRPC's DEADLINE_EXCEEDED (a call its peer never answered, also as an absl/XLA status "DEADLINE_EXCEEDED: …"): in a distributed job, peers that did not meet.
    // torchelastic's RendezvousConnectionError ("the connection to a rendezvous backend has failed") is the same
    // store at set-up; a DistNetworkError that says it timed out is a peer that never came.
    pattern: String.raw`${RAISED}(?<exception>DistStoreError|TimeoutError|GetTimeoutError|DeadlineExceededError|RendezvousConnectionError|(?<=socket\.)timeout)${END}|${RAISED}DistNetworkError\b[^\n]{0,300}\b(?:timed out|timeout)\b|\bStatusCode\.DEADLINE_EXCEEDED\b|^[^\n]{0,240}\bDEADLINE_EXCEEDED: \S|"grpc_status":\s?4\b`,
    flags: '',
    error_type: 'distributed_timeout',
    severity: 'error',
    subsystem: 'distributed',
    priority: 12,
  },
];
