import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, dataDirLockHolder, DataDirLockedError, LOCK_FILE } from '../../src/db/data-dir-lock.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'fl-lock-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function writeLock(dir: string, holder: object): void {
  writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(holder));
}

describe('the data-dir lock', () => {
  it('writes a lock file with the owner and pid, and removes it on release', () => {
    const dir = tempDir();
    const lock = acquireDataDirLock(dir, 'server');
    const content = JSON.parse(readFileSync(path.join(dir, LOCK_FILE), 'utf8'));
    expect(content).toMatchObject({ pid: process.pid, owner: 'server', hostname: hostname() });
    expect(dataDirLockHolder(dir)).toMatchObject({ pid: process.pid, owner: 'server' });
    lock.release();
    expect(existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    expect(dataDirLockHolder(dir)).toBeNull();
    lock.release();
  });

  it('creates a missing data dir', () => {
    const dir = path.join(tempDir(), 'nested', 'data');
    acquireDataDirLock(dir, 'cli').release();
    expect(existsSync(dir)).toBe(true);
  });

  it('refuses a second holder while the first is alive, naming it', () => {
    const dir = tempDir();
    const lock = acquireDataDirLock(dir, 'server');
    try {
      expect(() => acquireDataDirLock(dir, 'cli')).toThrowError(DataDirLockedError);
      try {
        acquireDataDirLock(dir, 'cli');
      } catch (error) {
        expect((error as DataDirLockedError).holder).toMatchObject({ owner: 'server', pid: process.pid });
        expect((error as Error).message).toMatch(/in use by the Fieldline server \(pid \d+/);
      }
    } finally {
      lock.release();
    }
  });

  it('refuses while another live process holds it', () => {
    const dir = tempDir();
    // The parent of this test process (vitest) is a live node process.
    writeLock(dir, { pid: process.ppid, owner: 'cli', hostname: hostname(), started_at: new Date().toISOString(), nonce: 'other' });
    expect(() => acquireDataDirLock(dir, 'server')).toThrowError(/in use by another fieldline command/);
  });

  it('takes over a stale lock whose process is gone', () => {
    const dir = tempDir();
    writeLock(dir, { pid: deadPid(), owner: 'server', hostname: hostname(), started_at: '2020-01-01T00:00:00.000Z', nonce: 'dead' });
    expect(dataDirLockHolder(dir)).toBeNull();
    const lock = acquireDataDirLock(dir, 'cli');
    expect(JSON.parse(readFileSync(path.join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, owner: 'cli' });
    lock.release();
  });

  it('takes over a lock left with its own pid by an earlier process (pid reuse in a container)', () => {
    const dir = tempDir();
    writeLock(dir, { pid: process.pid, owner: 'server', hostname: hostname(), started_at: '2020-01-01T00:00:00.000Z', nonce: 'earlier' });
    acquireDataDirLock(dir, 'server').release();
  });

  it('keeps a lock held from another host, since its pid cannot be checked here', () => {
    const dir = tempDir();
    writeLock(dir, { pid: 1, owner: 'server', hostname: 'elsewhere.invalid', started_at: new Date().toISOString(), nonce: 'remote' });
    expect(() => acquireDataDirLock(dir, 'cli')).toThrowError(/on host elsewhere.invalid/);
  });

  it('release leaves alone a lock file that is no longer its own', () => {
    const dir = tempDir();
    const lock = acquireDataDirLock(dir, 'cli');
    // Someone (wrongly) replaced our lock: release must leave theirs alone.
    writeLock(dir, { pid: process.ppid, owner: 'server', hostname: hostname(), started_at: new Date().toISOString(), nonce: 'theirs' });
    lock.release();
    expect(JSON.parse(readFileSync(path.join(dir, LOCK_FILE), 'utf8')).nonce).toBe('theirs');
  });
});
