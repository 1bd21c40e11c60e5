// The simulated bookkeeping model seen by the optimizer as an ordinary Adapter: one metric call
// turns one supplier invoice into a ledger entry under the candidate's system prompt, and the
// grader scores it. Per house rule the invoice needs, the model follows the rule as its prompt
// states it (unless it overlooks it, a little more often the longer the prompt), or else goes by
// habit; an entry scores the share of the invoice's rules it follows, and the grader names every
// rule it broke. The reflection records show the invoice, the entry and that feedback, never the
// hidden list of rules.
import { Rng } from '../../gepa/core/rng.js';
import type { Adapter, Candidate, Evaluation } from '../../gepa/core/adapter.js';
import { combineHashes, hashString, unitFromHash } from '../hash32.js';
import type { LatencyModel } from '../simulatedLatency.js';
import { simulatedTaskAdapter } from '../simulatedTaskAdapter.js';
import type { InvoiceExample } from './invoiceDataset.js';
import { ruleOf, RULE_IDS, type RuleId } from './houseRules.js';
import { parseRulePromptCached, type RulePrompt } from './rulePrompt.js';

export const BOOKKEEPING_COMPONENT = 'system_prompt';

/** Share of habit draws that depend on the prompt's exact wording; the rest belong to the invoice. */
const PROMPT_SENSITIVITY = 0.1;
const RULE_NUMBER = new Map<RuleId, number>(RULE_IDS.map((id, i) => [id, i + 1]));

export interface BookkeeperOptions extends LatencyModel {
  seed: number;
}

export interface BookkeeperTrace {
  /** What the model did per rule and why. */
  notes: string[];
}

function promptText(candidate: Candidate): string {
  const text = candidate[BOOKKEEPING_COMPONENT];
  if (typeof text !== 'string') {
    throw new TypeError(`the bookkeeping task needs component '${BOOKKEEPING_COMPONENT}'; this candidate has: ${Object.keys(candidate).join(', ') || 'none'}`);
  }
  return text;
}

/** The entry the model writes for one invoice, and its grade. */
export function bookInvoice(prompt: RulePrompt, example: InvoiceExample, seed: number, withTrace: boolean): Evaluation {
  const exampleHash = hashString(example.id, seed);
  const rng = new Rng(combineHashes(prompt.hash, exampleHash, seed));
  const draw = (salt: number) => (rng.next() < PROMPT_SENSITIVITY ? rng.next() : unitFromHash(combineHashes(exampleHash, salt, seed)));
  const notes: string[] = [];
  const followed = new Map<RuleId, boolean>();
  for (const id of example.rules) {
    const stated = prompt.stated.get(id);
    if (stated !== undefined && rng.next() >= prompt.overlook) {
      followed.set(id, !stated.wrong);
      if (withTrace) notes.push(`${id}: followed "${stated.sentence}".`);
      continue;
    }
    followed.set(id, draw(RULE_NUMBER.get(id) as number) < ruleOf(id).habit);
    if (withTrace) notes.push(`${id}: ${stated === undefined ? 'no instruction' : `overlooked "${stated.sentence}"`}; went by habit.`);
  }
  const entry = example.rules.map((id) => (followed.get(id) ? ruleOf(id).right : ruleOf(id).wrong)).join('; ');
  const broken = example.rules.filter((id) => !followed.get(id));
  const feedback =
    broken.length === 0
      ? 'Correct: the entry follows every house rule this invoice needs.'
      : broken.map((id) => `Rule broken: ${ruleOf(id).requirement} (the entry has "${ruleOf(id).wrong}").`).join(' ');
  const evaluation: Evaluation = { score: (example.rules.length - broken.length) / example.rules.length, output: entry, feedback };
  if (withTrace) evaluation.trace = { notes } satisfies BookkeeperTrace;
  return evaluation;
}

export function createBookkeeperModel(options: BookkeeperOptions): Adapter<InvoiceExample> {
  return simulatedTaskAdapter(options, { readPrompt: (candidate) => parseRulePromptCached(promptText(candidate)), answer: bookInvoice });
}
