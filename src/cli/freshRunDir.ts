// A new run directory for a command that was not given one (`demo` writes its report there):
// runs/<prefix>-<date>-<time> under the working directory, claimed with a non-recursive mkdir so
// two runs started in the same second never share (or overwrite) one; the second gets "-2".
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

const pad = (n: number) => String(n).padStart(2, '0');

/** `20261203-103450`: the local date and time, sortable, safe in a file name on every platform. */
export function runDirStamp(date: Date): string {
  const day = `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}`;
  return `${day}-${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`;
}

/** Creates and returns `<parent>/<prefix>-<stamp>` (or `...-<stamp>-N`, the first that is free). */
export async function claimFreshRunDir(parent: string, prefix: string, date: Date): Promise<string> {
  await mkdir(parent, { recursive: true });
  const base = join(parent, `${prefix}-${runDirStamp(date)}`);
  for (let n = 1; ; n++) {
    const dir = n === 1 ? base : `${base}-${n}`;
    try {
      await mkdir(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
