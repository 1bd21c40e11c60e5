// How the simulated front-desk model answers one guest message and how the grader scores it. Per
// fact the guest asked about, the model gives it as its prompt states it (unless it overlooks
// it, a little more often in cluttered prompts), or else guesses by habit (often not at all).
// Per fact the prompt states that the guest did not ask about, it may volunteer it anyway, more
// often the more facts the prompt lists (less when the prompt asks to keep to the question).
// The grade: half a point per asked fact given right, minus a penalty per volunteered fact.
import { Rng } from '../../gepa/core/rng.js';
import type { Evaluation } from '../../gepa/core/adapter.js';
import { combineHashes, hashString, unitFromHash } from '../hash32.js';
import type { FactPrompt } from './factPrompt.js';
import type { HotelExample } from './hotelDataset.js';
import { factOf, FACT_IDS, type FactId } from './hotelFacts.js';

/** Score lost per fact the reply brings up that the guest did not ask about. */
export const VOLUNTEER_PENALTY = 0.15;
/** Facts a prompt can list before the model starts to volunteer them. */
export const FREE_FACTS = 5;
const VOLUNTEER_PER_FACT = 0.012;
/** A prompt that asks to keep to the question volunteers this share as often. */
const FOCUS_FACTOR = 0.6;
/** Share of draws that depend on the prompt's exact wording; the rest belong to the message. */
const PROMPT_SENSITIVITY = 0.1;
const FACT_NUMBER = new Map<FactId, number>(FACT_IDS.map((id, i) => [id, i + 1]));

/** Chance of volunteering each stated fact the guest did not ask about. */
export function volunteerRate(statedFacts: number, focused: boolean): number {
  return Math.min(0.5, VOLUNTEER_PER_FACT * Math.max(0, statedFacts - FREE_FACTS) * (focused ? FOCUS_FACTOR : 1));
}

export interface FrontDeskTrace {
  /** What the model did per fact and why. */
  notes: string[];
}

type Given = 'right' | 'wrong' | 'unsure';

export function answerGuest(prompt: FactPrompt, example: HotelExample, seed: number, withTrace: boolean): Evaluation {
  const exampleHash = hashString(example.id, seed);
  const rng = new Rng(combineHashes(prompt.hash, exampleHash, seed));
  // Mostly the message's own draw (the same for every wording of the prompt), now and then the wording's.
  const draw = (salt: number) => (rng.next() < PROMPT_SENSITIVITY ? rng.next() : unitFromHash(combineHashes(exampleHash, salt, seed)));
  const notes: string[] = [];
  const given = new Map<FactId, Given>();

  for (const id of example.facts) {
    const fact = factOf(id);
    const stated = prompt.stated.get(id);
    if (stated !== undefined && rng.next() >= prompt.overlook) {
      given.set(id, stated.wrong ? 'wrong' : 'right');
      if (withTrace) notes.push(`${id}: followed "${stated.sentence}".`);
      continue;
    }
    const u = draw(FACT_NUMBER.get(id) as number);
    // Without an instruction it knows the fact by habit, or makes something up half the time it does not.
    given.set(id, u < fact.habit ? 'right' : u < fact.habit + (1 - fact.habit) / 2 ? 'wrong' : 'unsure');
    if (withTrace) notes.push(`${id}: ${stated === undefined ? 'no instruction' : `overlooked "${stated.sentence}"`}; went by habit.`);
  }

  const rate = volunteerRate(prompt.stated.size, prompt.focused);
  const volunteered: FactId[] = [];
  for (const [id, stated] of prompt.stated) {
    if (example.facts.includes(id)) continue;
    if (draw(100 + (FACT_NUMBER.get(id) as number)) < rate) {
      volunteered.push(id);
      if (withTrace) notes.push(`${id}: volunteered "${stated.sentence}" though the guest did not ask.`);
    }
  }

  const reply = [
    ...example.facts.map((id) => {
      const fact = factOf(id);
      const g = given.get(id);
      if (g === 'right') return fact.phrasings[0] as string;
      if (g === 'wrong') return fact.wrongReply;
      return `For ${fact.topic}, please ask at the front desk.`;
    }),
    ...volunteered.map((id) => prompt.stated.get(id)?.sentence as string),
  ].join(' ');
  const right = example.facts.filter((id) => given.get(id) === 'right').length;
  const score = Math.max(0, right / 2 - VOLUNTEER_PENALTY * volunteered.length);
  const evaluation: Evaluation = { score, output: reply, feedback: feedbackOf(example, given, volunteered) };
  if (withTrace) evaluation.trace = { notes } satisfies FrontDeskTrace;
  return evaluation;
}

/** The grader's words: each asked fact the reply missed or got wrong, and each it brought up unasked. */
function feedbackOf(example: HotelExample, given: ReadonlyMap<FactId, Given>, volunteered: readonly FactId[]): string {
  const parts: string[] = [];
  for (const id of example.facts) {
    const g = given.get(id);
    if (g === 'wrong') parts.push(`The reply got it wrong: ${factOf(id).truth}.`);
    else if (g === 'unsure') parts.push(`The reply missed that ${factOf(id).truth}.`);
  }
  for (const id of volunteered) parts.push(`The guest did not ask about ${factOf(id).topic}; leave it out.`);
  return parts.length === 0 ? 'Correct: the reply gives both facts the guest asked about and nothing else.' : parts.join(' ');
}
