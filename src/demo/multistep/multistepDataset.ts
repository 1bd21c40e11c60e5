// The two-stage task's dataset: multi-step word problems of several families with different
// frequencies. Every split is a function of (seed, split name, size): families are allocated by
// weight (so small splits are representative), then shuffled and drawn.
import { Rng } from '../../gepa/core/rng.js';
import { allocateByWeight } from '../allocateByWeight.js';
import { combineHashes, hashString } from '../hash32.js';
import { FAMILIES, FAMILY_NAMES, type FamilyName, type Params } from './problemFamilies.js';

export interface MultistepExample {
  id: string;
  /** The problem as the solver sees it. */
  input: string;
  /** The exact answer the grader expects (value and format). */
  answer: string;
  /** Hidden: the family and the numbers the answer is computed from. */
  family: FamilyName;
  params: Params;
}

export interface MultistepDataset {
  trainset: MultistepExample[];
  valset: MultistepExample[];
  testset: MultistepExample[];
}

const ALL_RIGHT = () => true;

export function expectedAnswer(family: FamilyName, params: Params): string {
  const spec = FAMILIES[family];
  return spec.render(spec.value(params, ALL_RIGHT), true, params);
}

function generateSplit(seed: number, split: string, size: number): MultistepExample[] {
  if (!Number.isInteger(size) || size < 0 || size > 2000) throw new RangeError(`${split} size must be an integer in [0, 2000], got ${size}`);
  const rng = new Rng(combineHashes(hashString(`multistep:${split}`), seed >>> 0));
  const families = rng.shuffle(allocateByWeight(size, FAMILY_NAMES, (f) => FAMILIES[f].weight));
  return families.map((family, index) => {
    const { input, params } = FAMILIES[family].generate(rng);
    return { id: `${split}-${index}`, input, answer: expectedAnswer(family, params), family, params };
  });
}

export function generateMultistepDataset(seed: number, sizes: { trainSize: number; valSize: number; testSize: number }): MultistepDataset {
  return {
    trainset: generateSplit(seed, 'train', sizes.trainSize),
    valset: generateSplit(seed, 'val', sizes.valSize),
    testset: generateSplit(seed, 'test', sizes.testSize),
  };
}
