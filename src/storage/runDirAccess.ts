// Can a run directory be used, and for what: checked before any request is made, so that a run
// whose log could never be written is refused at once (naming runDir) instead of failing after
// paid work, and the one rule of what a directory may hold, for the library's runDir and the
// command's alike: a non-empty folder that holds no run is refused (its files are the user's);
// a new run needs an empty or new folder, a resume one that holds a run. Pseudo file systems
// (/proc, /sys, ...) are refused without touching them (a recursive mkdir under /proc never
// returns); elsewhere a real write, removed at once, is the only test that holds for root and
// for read-only mounts alike.
import { mkdirSync, readdirSync, rmdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { RunDirectoryError } from './runDirectoryError.js';
import { RUN_FILES } from './runDirectory.js';

/** statfs magic numbers of Linux pseudo file systems: kernel views, not storage. */
const PSEUDO_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x1cd1, 'devpts'],
  [0xcafe4a11, 'bpf'],
  [0x6165676c, 'pstore'],
]);

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** The deepest existing path on the way to `dir` (itself when it exists). */
function nearestExisting(dir: string): { path: string; isDirectory: boolean } {
  for (let path = dir; ; path = dirname(path)) {
    try {
      return { path, isDirectory: statSync(path).isDirectory() };
    } catch (error) {
      if (codeOf(error) !== 'ENOENT' && codeOf(error) !== 'ENOTDIR') throw error;
      if (dirname(path) === path) throw error;
    }
  }
}

function refuse(dir: string, why: string): never {
  throw new RunDirectoryError(`runDir: ${dir} ${why}; choose another directory (runDir in the config, or --run-dir)`);
}

/**
 * Throws RunDirectoryError (naming runDir) unless `dir` exists as a writable directory or can be
 * created. Leaves nothing behind: the probe file, or the one directory made, is removed again.
 */
export function checkRunDirUsable(given: string): void {
  const dir = resolve(given);
  let existing: ReturnType<typeof nearestExisting>;
  try {
    existing = nearestExisting(dir);
  } catch (error) {
    // EACCES on a parent, ELOOP, ...: the run could not use it either.
    refuse(dir, `cannot be reached (${codeOf(error) ?? String(error)})`);
  }
  if (!existing.isDirectory) {
    refuse(dir, existing.path === dir ? 'exists and is not a directory' : `cannot be created: ${existing.path} is not a directory`);
  }
  const kind = PSEUDO_FILE_SYSTEMS.get(Number(statfsSync(existing.path).type));
  if (kind !== undefined) refuse(dir, `is on the ${kind} pseudo file system (${existing.path}), which holds no files`);
  try {
    if (existing.path === dir) {
      const probe = join(dir, `.gepa-actors-write-check-${process.pid}`);
      writeFileSync(probe, '', { flag: 'wx' });
      rmSync(probe, { force: true });
    } else {
      // The first missing directory, made and removed: the run makes it (and the rest) when it starts.
      let first = dir;
      while (dirname(first) !== existing.path) first = dirname(first);
      mkdirSync(first);
      rmdirSync(first);
    }
  } catch (error) {
    refuse(dir, `${existing.path === dir ? 'is not writable' : 'cannot be created'} (${codeOf(error) ?? String(error)} in ${existing.path})`);
  }
}

/**
 * How a directory is to be used: 'continue' (optimize()'s runDir: the run it holds is resumed, an
 * empty or new one starts a run), 'new' (the command without --resume), 'resume' (--resume).
 */
export type RunDirUse = 'continue' | 'new' | 'resume';

const RUN_CONFIG_FILE = RUN_FILES.config;

function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return [];
    throw error;
  }
}

const entries = (n: number) => `${n} entr${n === 1 ? 'y' : 'ies'}`;

/**
 * The one rule of what a run directory may hold, before anything is written or paid for: throws
 * RunDirectoryError (naming runDir) when `dir` cannot be used at all, holds files that are not a
 * run, holds a run when a new one is asked for ('new'), or holds none to resume ('resume').
 * Returns whether it holds a run.
 */
export function checkRunDir(given: string, use: RunDirUse): { holdsRun: boolean } {
  checkRunDirUsable(given);
  const dir = resolve(given);
  const found = entriesOf(dir);
  const holdsRun = found.includes(RUN_CONFIG_FILE);
  if (found.length > 0 && !holdsRun) {
    const notARun = `runDir: ${dir} already holds files that are not a run (${entries(found.length)})`;
    throw new RunDirectoryError(
      use === 'resume'
        ? `runDir: ${dir} holds no run to resume (no ${RUN_CONFIG_FILE}); it was not made by gepa-actors: nothing was written to it. Choose the directory of the run to continue.`
        : use === 'new'
          ? `${notARun}. Choose an empty or new directory.`
          : `${notARun}: nothing was written to it. Choose an empty or new directory, or the directory of a run to continue.`,
    );
  }
  if (use === 'new' && holdsRun) {
    throw new RunDirectoryError(`runDir: ${dir} already holds a run (${entries(found.length)}). Use --resume to continue it, or choose another directory.`);
  }
  if (use === 'resume' && !holdsRun) {
    throw new RunDirectoryError(`runDir: ${dir} holds no run to resume (no ${RUN_CONFIG_FILE}); leave out --resume to start a new run there.`);
  }
  return { holdsRun };
}
