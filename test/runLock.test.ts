// The LOCK of a run directory: created exclusively (of processes racing for it exactly one wins,
// also when they race to take over a dead process's lock), released only by its owner, and
// taken over only from a dead process on this host.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunLock } from '../src/storage/runLock.js';
import { RunDirectoryError } from '../src/storage/runDirectoryError.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'gepa-lock-'));
  dirs.push(d);
  return d;
};
const lockOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'LOCK'), 'utf8')) as { pid: number; hostname: string; token: string };

/** A pid that no process has now: a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** Starts `n` takers, lets them all take the lock at once, and returns what each printed. */
async function race(dir: string, n: number): Promise<string[]> {
  const children: ChildProcess[] = [];
  const lines = await Promise.all(
    Array.from({ length: n }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/lockTakerChild.ts', dir], { stdio: ['pipe', 'pipe', 'inherit'] });
      children.push(child);
      let out = '';
      const ready = new Promise<void>((resolve) => {
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.startsWith('ready\n')) resolve();
        });
      });
      const answered = new Promise<string>((resolve) => {
        child.stdout!.on('data', () => {
          const second = out.split('\n')[1];
          if (second) resolve(second);
        });
      });
      return ready.then(() => ({ child, answered }));
    }),
  ).then(async (started) => {
    for (const { child } of started) child.stdin!.write('go\n');
    return Promise.all(started.map((s) => s.answered));
  });
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          child.on('exit', () => resolve());
          child.stdin!.end();
        }),
    ),
  );
  return lines;
}

describe('RunLock', () => {
  it('of four processes racing for a free directory, exactly one wins', async () => {
    const dir = freshDir();
    const lines = await race(dir, 4);
    expect(lines.filter((l) => l === 'won')).toHaveLength(1);
    for (const l of lines.filter((l) => l !== 'won')) expect(l).toMatch(/^lost: runDir .* is in use by process \d+ on /);
    // The winner released it on exit; no temporary file is left.
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

  it("of four processes racing to take over a dead process's lock, exactly one wins", async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'LOCK'), JSON.stringify({ pid: deadPid(), hostname: hostname(), token: 'old' }));
    const lines = await race(dir, 4);
    expect(lines.filter((l) => l === 'won')).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);

  it('records a token, and is released only by its owner', () => {
    const dir = freshDir();
    const lock = RunLock.take(dir);
    expect(lockOf(dir)).toEqual({ pid: process.pid, hostname: hostname(), token: lock.token });
    expect(() => RunLock.take(dir)).toThrow(RunDirectoryError);
    // Someone else's lock now (e.g. ours was taken over): releasing ours must not delete it.
    writeFileSync(join(dir, 'LOCK'), JSON.stringify({ pid: process.ppid, hostname: hostname(), token: 'theirs' }));
    lock.release();
    expect(lockOf(dir).token).toBe('theirs');
    rmSync(join(dir, 'LOCK'));
    const again = RunLock.take(dir);
    again.release();
    expect(existsSync(join(dir, 'LOCK'))).toBe(false);
  });

  it('takes over only from a dead process on this host', () => {
    const dir = freshDir();
    const write = (holder: object) => writeFileSync(join(dir, 'LOCK'), JSON.stringify(holder));
    write({ pid: process.ppid, hostname: hostname(), token: 'alive' });
    expect(() => RunLock.take(dir)).toThrow(/is in use by process \d+ on /);
    write({ pid: deadPid(), hostname: 'another-host', token: 'elsewhere' });
    expect(() => RunLock.take(dir)).toThrow(/on another-host/);
    write({ pid: deadPid(), hostname: hostname(), token: 'dead' });
    const lock = RunLock.take(dir);
    expect(lockOf(dir).token).toBe(lock.token);
    lock.release();
    // An unreadable lock is not ours to judge: refused, with what to do.
    writeFileSync(join(dir, 'LOCK'), '{"pid": 12');
    expect(() => RunLock.take(dir)).toThrow(/in use by an unknown process \(the lock is unreadable\); if no such run is alive, delete/);
  });
});
