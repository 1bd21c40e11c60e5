// The LOCK of a run directory: which process runs it. It is created exclusively (of processes
// racing for it, exactly one wins; a check-then-write let two `--resume`s run one directory), it
// records a token that only its owner knows (release deletes it only if it still holds that
// token), and a lock left by a dead process on this host is taken over by renaming exactly that
// lock away, never a newer one.
import { randomUUID } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { RunDirectoryError } from './runDirectoryError.js';

export const LOCK_FILE = 'LOCK';

/** The filesystem calls the lock makes: node:fs, or in tests a slowed one that widens every race. */
export type LockFs = Pick<typeof nodeFs, 'closeSync' | 'linkSync' | 'openSync' | 'readFileSync' | 'renameSync' | 'rmSync' | 'writeFileSync' | 'writeSync'>;

interface LockRecord {
  pid: number;
  hostname: string;
  token: string;
}

/** Directories this process holds, by lock token: a pid alone cannot tell this process's lock from an earlier one's. */
const heldHere = new Map<string, string>();

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readRecord(fs: LockFs, path: string): Partial<LockRecord> | 'missing' | 'unreadable' {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable';
  }
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Partial<LockRecord>) : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/**
 * Creates `path` holding `content`, or returns false when it exists. A hard link of a complete
 * temporary file makes the content appear with the name, so no taker ever reads a half-written
 * lock; filesystems without hard links get an exclusive open ('wx') instead.
 */
function createExclusive(fs: LockFs, path: string, content: string): boolean {
  const temporary = `${path}.${randomUUID()}.tmp`;
  fs.writeFileSync(temporary, content);
  try {
    fs.linkSync(temporary, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  let fd: number;
  try {
    fd = fs.openSync(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.writeSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** True when the holder is gone: a dead pid on this host (or this pid, but not a lock this process took). */
function isStale(holder: Partial<LockRecord>, dir: string): boolean {
  if (typeof holder.pid !== 'number' || holder.hostname !== hostname()) return false;
  // In a container an earlier run may have had this very pid: only our own token means ours.
  if (holder.pid === process.pid) return heldHere.get(dir) !== holder.token;
  return !processIsAlive(holder.pid);
}

/** Removes the lock at `path` only if it is still the stale one read (same token): a newer lock stays. */
function removeStale(fs: LockFs, path: string, stale: Partial<LockRecord>): void {
  const aside = `${path}.${randomUUID()}.stale`;
  try {
    fs.renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else removed it
    throw error;
  }
  const moved = readRecord(fs, aside);
  if (typeof moved === 'object' && moved.token !== stale.token) {
    // A live lock taken in the meantime: put it back (unless yet another was created since).
    try {
      fs.linkSync(aside, path);
    } catch {
      // LOCK exists again: that taker won; ours is not to restore.
    }
  }
  fs.rmSync(aside, { force: true });
}

/** Whether a live process holds `dir`'s LOCK: one left by a dead process on this host does not count (an unreadable one does). */
export function isRunLockHeld(dir: string, fs: LockFs = nodeFs): boolean {
  const holder = readRecord(fs, join(dir, LOCK_FILE));
  if (holder === 'missing') return false;
  return holder === 'unreadable' || !isStale(holder, dir);
}

export class RunLock {
  private released = false;

  private constructor(
    readonly dir: string,
    readonly token: string,
    private readonly fs: LockFs,
  ) {}

  /** Takes dir/LOCK, or throws RunDirectoryError naming the live holder. */
  static take(dir: string, fs: LockFs = nodeFs): RunLock {
    const path = join(dir, LOCK_FILE);
    const mine: LockRecord = { pid: process.pid, hostname: hostname(), token: randomUUID() };
    // A few rounds: each lost race for a stale lock is a new look at the current holder.
    for (let round = 0; round < 5; round++) {
      if (createExclusive(fs, path, JSON.stringify(mine))) {
        heldHere.set(dir, mine.token);
        return new RunLock(dir, mine.token, fs);
      }
      const holder = readRecord(fs, path);
      if (holder === 'missing') continue;
      if (holder === 'unreadable' || !isStale(holder, dir)) {
        const who = holder === 'unreadable' ? 'an unknown process (the lock is unreadable)' : `process ${String(holder.pid)} on ${String(holder.hostname)}`;
        throw new RunDirectoryError(`runDir ${dir} is in use by ${who}; if no such run is alive, delete ${path}`);
      }
      removeStale(fs, path, holder);
    }
    throw new RunDirectoryError(`runDir ${dir}: could not take ${path}: other processes keep taking it`);
  }

  /** Deletes the lock if it is still ours: a lock taken over since (ours looked stale) is left alone. */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (heldHere.get(this.dir) === this.token) heldHere.delete(this.dir);
    const path = join(this.dir, LOCK_FILE);
    const holder = readRecord(this.fs, path);
    if (typeof holder === 'object' && holder.token === this.token) this.fs.rmSync(path, { force: true });
  }
}
