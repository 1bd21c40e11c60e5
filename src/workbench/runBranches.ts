// Branches of a run: new runs that start from one of its candidates with changed settings. Each
// lives inside its origin's directory, so the workbench serves nothing outside the directory it
// was pointed at: `<runDir>/branches/<n>/` is the branch's run directory, `<n>.json` says where it
// came from and what changed, `<n>.seed.json` holds the candidate it starts from, `<n>.log` the
// output of the process that runs it. Both runs' views read these files to link to each other.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';

export const BRANCHES_DIR = 'branches';

const branchSchema = z.object({
  version: z.literal(1),
  /** The branch's number in its origin. */
  n: z.number().int().positive(),
  /** The origin's candidate it starts from, and that candidate's valset score then. */
  candidate: z.number().int().nonnegative(),
  score: z.number().optional(),
  /** The settings it changed: a budget (metric calls), a schedule as the command writes it, a reflection model. */
  changes: z.object({ budget: z.number().int().positive().optional(), schedule: z.string().optional(), reflectionModel: z.string().optional() }),
  /** When it was made (ISO 8601). */
  createdAt: z.string(),
});

/** `<n>.json` of a branch. */
export type BranchRecord = z.infer<typeof branchSchema>;

/** A branch as its origin lists it. */
export interface BranchLink extends BranchRecord {
  /** The branch's run id under the workbench's root ('' is the root): `branches/<n>`, nested for branches of branches. */
  dir: string;
}

const readRecord = (path: string): BranchRecord | undefined => {
  try {
    const parsed = branchSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

/** The branches of the run in `dir`, by number. */
export function listBranches(dir: string): BranchRecord[] {
  const folder = join(dir, BRANCHES_DIR);
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => /^\d+\.json$/.test(name))
    .flatMap((name) => readRecord(join(folder, name)) ?? [])
    .sort((a, b) => a.n - b.n);
}

/** The next free branch number of `dir`. */
export function nextBranchNumber(dir: string): number {
  return Math.max(0, ...listBranches(dir).map((b) => b.n)) + 1;
}

/** The files of branch `n` of `dir`. */
export function branchPaths(dir: string, n: number): { runDir: string; record: string; seed: string; log: string } {
  const folder = join(dir, BRANCHES_DIR);
  return { runDir: join(folder, String(n)), record: join(folder, `${n}.json`), seed: join(folder, `${n}.seed.json`), log: join(folder, `${n}.log`) };
}

/** When `dir` is a branch (`<origin>/branches/<n>`), its record; the origin is two folders up. */
export function branchOrigin(dir: string): BranchRecord | undefined {
  const parent = dirname(dir);
  if (basename(parent) !== BRANCHES_DIR || !/^\d+$/.test(basename(dir))) return undefined;
  return readRecord(join(parent, `${basename(dir)}.json`));
}
