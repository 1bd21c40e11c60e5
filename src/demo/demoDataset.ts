// The demo dataset: support tickets of an online shop that ask for a number, a date or a time.
// Every split is a function of (seed, split name, size): kinds are allocated in fixed
// proportions (so small splits are representative), then shuffled; ticket numbers are unique
// across splits, so a rule about one ticket cannot help on another.
import { Rng } from '../gepa/core/rng.js';
import { allocateByWeight } from './allocateByWeight.js';
import type { SkillKey } from './conventions.js';
import { combineHashes, hashString } from './hash32.js';
import { PROBLEM_KINDS, PROBLEMS, type ProblemKind } from './shopProblems.js';

/** One support ticket of the demo task. */
export interface DemoExample {
  /** A stable id, e.g. for reports. */
  id: string;
  /** The ticket as the task model sees it. */
  input: string;
  /** The exact answer the grader expects. */
  answer: string;
  /** Hidden: the kind of ticket and the numbers the answer is computed from. */
  kind: ProblemKind;
  /** Hidden: the numbers the answer is computed from. */
  params: Record<string, number>;
  /** Hidden: the conventions ("slot:option") the answer depends on. */
  skills: SkillKey[];
}

export interface DemoDatasetSizes {
  trainSize: number;
  valSize: number;
  testSize: number;
}

export interface DemoDataset {
  trainset: DemoExample[];
  valset: DemoExample[];
  testset: DemoExample[];
}

function allocateKinds(size: number): ProblemKind[] {
  return allocateByWeight(size, PROBLEM_KINDS, (k) => PROBLEMS[k].weight);
}

function generateSplit(seed: number, split: string, size: number, usedTickets: Set<number>): DemoExample[] {
  const rng = new Rng(combineHashes(hashString(split), seed >>> 0));
  const kinds = rng.shuffle(allocateKinds(size));
  const seenOfKind = new Map<ProblemKind, number>();
  return kinds.map((kind, index) => {
    const spec = PROBLEMS[kind];
    const nth = seenOfKind.get(kind) ?? 0;
    seenOfKind.set(kind, nth + 1);
    const kindTotal = kinds.filter((k) => k === kind).length;
    // The first share of each kind (in shuffled order) is the minority variant.
    const minority = nth < Math.round(spec.minorityShare * kindTotal);
    let ticket: number;
    do ticket = 1000 + rng.int(9000);
    while (usedTickets.has(ticket));
    usedTickets.add(ticket);
    const problem = spec.generate(rng, String(ticket), minority);
    const expected = Object.fromEntries(problem.skills.map((s) => s.split(':') as [string, string]));
    return {
      id: `${split}-${index}`,
      input: problem.input,
      answer: spec.answerOf(problem.params, expected),
      kind,
      params: problem.params,
      skills: problem.skills,
    };
  });
}

function checkSize(name: string, n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 2000) throw new RangeError(`${name} must be an integer in [0, 2000], got ${n}`);
  return n;
}

/** Validation and test sets are drawn first so that their content does not depend on trainSize. */
export function generateDemoDataset(seed: number, sizes: DemoDatasetSizes): DemoDataset {
  const used = new Set<number>();
  const valset = generateSplit(seed, 'val', checkSize('valSize', sizes.valSize), used);
  const testset = generateSplit(seed, 'test', checkSize('testSize', sizes.testSize), used);
  const trainset = generateSplit(seed, 'train', checkSize('trainSize', sizes.trainSize), used);
  return { trainset, valset, testset };
}
