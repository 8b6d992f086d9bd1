import type { Readable } from 'node:stream';

// Where the bytes of attachment custom fields live (docs/decisions.md, Attachments). The domain sees storage only
// through this interface; the app chooses the implementation from its settings (src/files/: a directory on local
// disk, or an S3-compatible bucket) and injects it. Keys are opaque to the storage: the kernel makes them
// (`<account id>/<file id>`), never from client input.

export interface FileStorage {
  /** What the storage is, for logs and /readyz ("disk", "s3"). */
  readonly kind: string;
  /**
   * Writes the stream under `key`; resolves only once the bytes are durable (fsynced, or acknowledged by the
   * bucket). A stream that fails (the upload was aborted, the size limit reached) rejects, and nothing is left
   * under the key.
   */
  put(key: string, body: Readable): Promise<void>;
  /** A stream of the bytes stored under `key`; rejects when there are none. */
  open(key: string): Promise<Readable>;
  /** Removes what is stored under `key`; nothing stored is no error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
}
