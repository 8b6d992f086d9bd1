import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

// The embedded database (PGlite) in DATA_DIR must be opened by one process at a time: two processes writing
// the same files corrupt it. Whoever opens it (the server, the `fieldline` command) first takes this lock:
// a file created with O_EXCL in the data dir holding the owner's pid. A lock whose pid is no longer alive
// (crash, kill -9) is stale and taken over.

export const LOCK_FILE = 'fieldline.lock';

export type LockOwner = 'server' | 'cli';

export interface LockHolder {
  pid: number;
  owner: LockOwner | string;
  hostname: string;
  started_at: string;
  nonce?: string;
}

export interface DataDirLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** Removes the lock file if it is still ours. Safe to call more than once. */
  release(): void;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly lockPath: string,
    readonly holder: LockHolder | null,
  ) {
    super(`the embedded database in ${dataDir} is in use by ${describeHolder(holder)}`);
    this.name = 'DataDirLockedError';
  }
}

export function describeHolder(holder: LockHolder | null): string {
  if (!holder) return 'another process (its lock file is being written)';
  const who = holder.owner === 'server' ? 'the Fieldline server' : holder.owner === 'cli' ? 'another fieldline command' : `"${holder.owner}"`;
  const where = holder.hostname && holder.hostname !== hostname() ? ` on host ${holder.hostname}` : '';
  return `${who} (pid ${holder.pid}${where}, since ${holder.started_at})`;
}

/** Locks this process holds, by lock path (a second acquire in the same process is refused, not re-entered). */
const held = new Map<string, LockHolder>();

/** A lock file that is still empty or unparseable this long after it was written is left over from a crash. */
const UNREADABLE_GRACE_MS = 10_000;

function readHolder(file: string): LockHolder | null | 'missing' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as LockHolder;
    return Number.isInteger(parsed?.pid) && parsed.pid > 0 ? parsed : null;
  } catch {
    return null;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // Guard against pid reuse: the server and the command are node processes.
  if (process.platform === 'linux') {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline && !/node|tsx|fieldline/i.test(cmdline)) return false;
    } catch {
      // not readable: trust kill(0)
    }
  }
  return true;
}

function isStale(file: string, holder: LockHolder | null): boolean {
  if (!holder) {
    try {
      return Date.now() - statSync(file).mtimeMs > UNREADABLE_GRACE_MS;
    } catch {
      return false;
    }
  }
  // A holder on another host cannot be checked from here: the lock stands (remove the file by hand if that host is gone).
  if (holder.hostname && holder.hostname !== hostname()) return false;
  // Our own pid but not held by us: left by an earlier process that had the same pid (e.g. pid 1 in a container).
  if (holder.pid === process.pid) return !held.has(file);
  return !pidAlive(holder.pid);
}

/** Moves a stale lock aside; true when it was removed (or vanished), false when someone else replaced it meanwhile. */
function removeStale(file: string, stale: LockHolder | null): boolean {
  const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  const moved = readHolder(aside);
  const same = moved === 'missing' || (moved === null ? stale === null : stale !== null && moved.nonce === stale.nonce && moved.pid === stale.pid);
  if (!same) {
    // A live lock was written between our read and the rename: put it back.
    try {
      linkSync(aside, file);
    } catch {
      // someone holds the path again; the lock stands either way
    }
    try {
      unlinkSync(aside);
    } catch {}
    return false;
  }
  try {
    unlinkSync(aside);
  } catch {}
  return true;
}

/** Reads who holds the lock of a data dir, or null when nobody does (stale locks count as free). */
export function dataDirLockHolder(dataDir: string): LockHolder | null {
  const file = path.join(path.resolve(dataDir), LOCK_FILE);
  const holder = readHolder(file);
  if (holder === 'missing' || isStale(file, holder)) return null;
  return holder;
}

/**
 * Takes the data-dir lock for this process (creating the directory if needed). Throws DataDirLockedError
 * naming the holder when a live process holds it. The lock is also released when the process exits.
 */
export function acquireDataDirLock(dataDir: string, owner: LockOwner): DataDirLock {
  const dir = path.resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  const mine = held.get(file);
  if (mine) throw new DataDirLockedError(dataDir, file, mine);
  const holder: LockHolder = { pid: process.pid, owner, hostname: hostname(), started_at: new Date().toISOString(), nonce: randomBytes(8).toString('hex') };
  for (let attempt = 0; attempt < 5; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const current = readHolder(file);
      if (current === 'missing') continue;
      if (!isStale(file, current)) throw new DataDirLockedError(dataDir, file, current);
      removeStale(file, current);
      continue;
    }
    try {
      writeSync(fd, `${JSON.stringify(holder)}\n`);
    } finally {
      closeSync(fd);
    }
    held.set(file, holder);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      process.removeListener('exit', release);
      held.delete(file);
      const current = readHolder(file);
      if (current !== 'missing' && current?.nonce === holder.nonce) {
        try {
          unlinkSync(file);
        } catch {}
      }
    };
    process.on('exit', release);
    return { path: file, holder, release };
  }
  throw new DataDirLockedError(dataDir, file, null);
}
