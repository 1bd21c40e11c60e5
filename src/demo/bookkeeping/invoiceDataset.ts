// The bookkeeping task's dataset: supplier invoices that each need four different house rules of the
// 24. The rules' slots of a split are allocated by weight (so small splits are representative:
// the date and amount formats are needed by most invoices, the meal split by few), shuffled, and
// cut into groups of four different rules. Every split is a function of (seed, split name, size).
import { Rng } from '../../gepa/core/rng.js';
import { allocateByWeight } from '../allocateByWeight.js';
import { combineHashes, hashString } from '../hash32.js';
import { ruleOf, RULE_IDS, type RuleId } from './houseRules.js';

/** House rules one invoice needs. */
export const RULES_PER_INVOICE = 4;

export interface InvoiceExample {
  id: string;
  /** The invoice as the model sees it. */
  input: string;
  /** Hidden: the rules the entry must follow. */
  rules: readonly RuleId[];
}

export interface InvoiceDataset {
  trainset: InvoiceExample[];
  valset: InvoiceExample[];
  testset: InvoiceExample[];
}

const SUPPLIERS = ['Brandt Bürotechnik GmbH', 'Nordlicht Cloud AG', 'Keller & Söhne KG', 'Atlas Travel Ltd', 'Pixelwerk GmbH', 'Moreau SARL'];

/**
 * Cuts the slots into groups of `size`; a rule that repeats within a group swaps places with a
 * slot of another group that neither group then holds twice, so every group has different rules.
 */
function groupDistinct(slots: RuleId[], size: number): RuleId[][] {
  const whole = slots.length - (slots.length % size);
  const groupOf = (i: number) => Math.floor(i / size);
  const holds = (g: number, id: RuleId, except: number) => {
    for (let i = g * size; i < (g + 1) * size; i++) if (i !== except && slots[i] === id) return true;
    return false;
  };
  for (let i = 0; i < whole; i++) {
    const id = slots[i] as RuleId;
    if (!holds(groupOf(i), id, i)) continue;
    for (let k = 0; k < whole; k++) {
      const other = slots[k] as RuleId;
      if (groupOf(k) === groupOf(i) || holds(groupOf(i), other, i) || holds(groupOf(k), id, k)) continue;
      [slots[i], slots[k]] = [other, id];
      break;
    }
  }
  const groups: RuleId[][] = [];
  for (let g = 0; g < whole / size; g++) groups.push(slots.slice(g * size, (g + 1) * size));
  return groups;
}

function generateSplit(seed: number, split: string, size: number): InvoiceExample[] {
  if (!Number.isInteger(size) || size < 0 || size > 2000) throw new RangeError(`${split} size must be an integer in [0, 2000], got ${size}`);
  const rng = new Rng(combineHashes(hashString(`bookkeeping:${split}`), seed >>> 0));
  const slots = rng.shuffle(allocateByWeight(RULES_PER_INVOICE * size, RULE_IDS, (id) => ruleOf(id).weight));
  return groupDistinct(slots, RULES_PER_INVOICE).map((rules, index) => {
    const number = String(100 + rng.int(900)).padStart(5, '0');
    const situations = rules.map((id) => ruleOf(id).situation);
    const input = `Invoice ${number} from ${rng.pick(SUPPLIERS)}: ${situations.join('; ')}.`;
    return { id: `${split}-${index}`, input, rules };
  });
}

export function generateInvoiceDataset(seed: number, sizes: { trainSize: number; valSize: number; testSize: number }): InvoiceDataset {
  return {
    trainset: generateSplit(seed, 'train', sizes.trainSize),
    valset: generateSplit(seed, 'val', sizes.valSize),
    testset: generateSplit(seed, 'test', sizes.testSize),
  };
}
