// SignatureV4 takes a hash *constructor* (its `sha256` option): this one wraps node:crypto, so signing the
// EKS token needs neither @aws-crypto/sha256-js nor a browser polyfill in the chunk.
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

type Data = string | ArrayBuffer | ArrayBufferView;

function bytes(data: Data): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** SHA-256, or HMAC-SHA-256 keyed with `secret`: the shape SignatureV4 expects of its `sha256` option. */
export class Sha256 {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: Data) {
    this.hash = this.fresh();
  }

  update(data: Data): void {
    this.hash.update(bytes(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.hash = this.fresh();
  }

  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(this.secret));
  }
}
