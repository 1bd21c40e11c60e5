// Replaces a file so that a reader, or a process killed mid-write, sees the old content or the
// new one, never a mix: write a temporary file beside it, fsync it, rename it over the target,
// then fsync the directory so the rename itself survives a machine crash.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function writeFileAtomic(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  syncDirectory(dirname(path));
}

/** Makes a rename or a new file in `dir` durable; a no-op where directories cannot be opened (Windows). */
export function syncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    closeSync(fd);
  }
}
