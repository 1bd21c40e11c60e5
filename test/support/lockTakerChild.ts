// A child process for the lock race: prints "ready", takes the LOCK of the directory argv[2] the
// moment "go" arrives on stdin, prints "won" or "lost: <why>", holds what it won until stdin
// ends, then releases it and exits. A slow filesystem (every call 30 ms late, as on a busy NFS
// mount) makes the racers' calls interleave: a check-then-write lock would let several win.
import * as fs from 'node:fs';
import { RunLock, type LockFs } from '../../src/storage/runLock.js';

const pause = new Int32Array(new SharedArrayBuffer(4));
const slow = <F extends (...args: never[]) => unknown>(f: F): F =>
  ((...args: Parameters<F>) => {
    Atomics.wait(pause, 0, 0, 30);
    return f(...args);
  }) as F;
const slowFs: LockFs = {
  closeSync: slow(fs.closeSync),
  linkSync: slow(fs.linkSync),
  openSync: slow(fs.openSync),
  readFileSync: slow(fs.readFileSync) as LockFs['readFileSync'],
  renameSync: slow(fs.renameSync),
  rmSync: slow(fs.rmSync),
  writeFileSync: slow(fs.writeFileSync),
  writeSync: slow(fs.writeSync) as LockFs['writeSync'],
};

const dir = process.argv[2];
if (!dir) throw new Error('usage: lockTakerChild.ts DIR');
let lock: RunLock | undefined;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  if (!chunk.includes('go') || lock) return;
  try {
    lock = RunLock.take(dir, slowFs);
    process.stdout.write('won\n');
  } catch (error) {
    process.stdout.write(`lost: ${(error as Error).message}\n`);
  }
});
process.stdin.on('end', () => {
  lock?.release();
  process.exit(0);
});
process.stdout.write('ready\n');
