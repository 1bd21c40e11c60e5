// The front-desk task's dataset: guest messages that each ask about two different facts of the
// sixteen. The facts' slots of a split are allocated by weight (so small splits are
// representative: a few facts are asked about far more often than the rest), shuffled, and
// paired. Every split is a function of (seed, split name, size).
import { Rng } from '../../gepa/core/rng.js';
import { allocateByWeight } from '../allocateByWeight.js';
import { combineHashes, hashString } from '../hash32.js';
import { factOf, FACT_IDS, type FactId } from './hotelFacts.js';

export interface HotelExample {
  id: string;
  /** The guest's message as the model sees it. */
  input: string;
  /** Hidden: the two facts the reply needs. */
  facts: readonly [FactId, FactId];
}

export interface HotelDataset {
  trainset: HotelExample[];
  valset: HotelExample[];
  testset: HotelExample[];
}

const GREETINGS = ['Hello,', 'Hi,', 'Good morning,', 'Dear front desk,', ''];
const JOINERS = ['Also:', 'And one more thing:', 'Another question:', ''];

/**
 * Pairs consecutive slots. A pair of the same fact swaps its second slot with a slot of another
 * pair whose partner is a different fact too, so every message asks about two different facts.
 */
function pairUp(slots: FactId[]): Array<[FactId, FactId]> {
  const even = slots.length - (slots.length % 2);
  for (let i = 0; i < even; i += 2) {
    const twice = slots[i] as FactId;
    if (slots[i + 1] !== twice) continue;
    const k = [...Array(even).keys()].find((k) => (k >> 1) !== (i >> 1) && slots[k] !== twice && slots[k ^ 1] !== twice);
    if (k !== undefined) [slots[i + 1], slots[k]] = [slots[k] as FactId, twice];
  }
  const pairs: Array<[FactId, FactId]> = [];
  for (let i = 0; i < even; i += 2) pairs.push([slots[i] as FactId, slots[i + 1] as FactId]);
  return pairs;
}

function generateSplit(seed: number, split: string, size: number): HotelExample[] {
  if (!Number.isInteger(size) || size < 0 || size > 2000) throw new RangeError(`${split} size must be an integer in [0, 2000], got ${size}`);
  const rng = new Rng(combineHashes(hashString(`hotel:${split}`), seed >>> 0));
  const slots = rng.shuffle(allocateByWeight(2 * size, FACT_IDS, (f) => factOf(f).weight));
  return pairUp(slots).map(([a, b], index) => {
    const greeting = rng.pick(GREETINGS);
    const joiner = rng.pick(JOINERS);
    const input = [greeting, rng.pick(factOf(a).questions), joiner, rng.pick(factOf(b).questions)].filter((s) => s !== '').join(' ');
    return { id: `${split}-${index}`, input, facts: [a, b] as const };
  });
}

export function generateHotelDataset(seed: number, sizes: { trainSize: number; valSize: number; testSize: number }): HotelDataset {
  return {
    trainset: generateSplit(seed, 'train', sizes.trainSize),
    valset: generateSplit(seed, 'val', sizes.valSize),
    testset: generateSplit(seed, 'test', sizes.testSize),
  };
}
