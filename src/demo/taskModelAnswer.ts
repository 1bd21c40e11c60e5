// How the simulated task model answers one ticket under one system prompt: per convention the
// ticket needs, it follows the first rule the prompt states for it (with a small chance of
// overlooking it, larger in cluttered prompts) or else falls back on a habit; then it may slip
// on the arithmetic. Every draw comes from a hash of (prompt text, example, task seed), so the
// result never depends on call order. Feedback explains the miss in plain words.
import type { Evaluation } from '../gepa/core/adapter.js';
import { Rng } from '../gepa/core/rng.js';
import { slipDigit } from './answerFormat.js';
import { ARITHMETIC_REASON, CONVENTION_BY_SKILL, habitOption, SLOTS, type ConventionOption, type Slot } from './conventions.js';
import type { DemoExample } from './demoDataset.js';
import { combineHashes, hashString, unitFromHash } from './hash32.js';
import type { ParsedPrompt } from './promptRules.js';
import { PROBLEMS } from './shopProblems.js';

/**
 * Share of habit choices that depend on the prompt's exact wording; the rest are a stable
 * property of the ticket. Keeps unrelated edits from re-rolling every answer.
 */
const PROMPT_SENSITIVITY = 0.1;
const BASE_OVERLOOK = 0.015;
const BASE_SLIP = 0.065;
const CAREFUL_SLIP = 0.04;

const TOPIC: Readonly<Record<Slot, string>> = {
  money: 'money amounts', containers: 'container counts', coupon: 'coupons and tax', weight: 'weights',
  time: 'clock times', shipping: 'shipping days', date: 'dates', percent: 'rates', thousands: 'large numbers',
};
const SLOT_NUMBER = new Map<Slot, number>(SLOTS.map((s, i) => [s, i + 1]));
const TICKET_IN_INPUT = /#(\d{3,6})\b/;

export interface TaskModelTrace {
  /** Prompt sentences the model applied to this ticket. */
  followed: string[];
  /** What it did, step by step. */
  steps: string[];
}

export function answerTicket(prompt: ParsedPrompt, example: DemoExample, seed: number, withTrace: boolean): Evaluation {
  const exampleHash = hashString(example.id, seed);
  const rng = new Rng(combineHashes(prompt.hash, exampleHash, seed));
  const overlook = Math.min(0.5, BASE_OVERLOOK + prompt.clutter);
  const slip = Math.min(0.6, (prompt.accuracy === undefined ? BASE_SLIP : CAREFUL_SLIP) + prompt.clutter / 2);
  const followed: string[] = [];
  const steps: string[] = [];
  const choices: Record<string, string> = {};
  const misses: ConventionOption[] = [];

  for (const skill of example.skills) {
    const expected = CONVENTION_BY_SKILL.get(skill);
    if (expected === undefined) continue;
    const slot = expected.slot;
    const stated = prompt.rules.get(slot);
    let used: ConventionOption;
    if (stated !== undefined && rng.next() >= overlook) {
      used = stated.convention;
      if (withTrace) {
        followed.push(stated.sentence);
        steps.push(`Followed "${stated.sentence}": wrote ${used.describe}.`);
      }
    } else {
      const u =
        rng.next() < PROMPT_SENSITIVITY
          ? rng.next()
          : unitFromHash(combineHashes(exampleHash, SLOT_NUMBER.get(slot) ?? 0, seed));
      used = habitOption(slot, u);
      if (withTrace) {
        steps.push(
          stated === undefined
            ? `No instruction about ${TOPIC[slot]}; wrote ${used.describe} out of habit.`
            : `Overlooked "${stated.sentence}"; wrote ${used.describe} out of habit.`,
        );
      }
    }
    choices[slot] = used.option;
    if (used !== expected) misses.push(expected);
  }

  let dictated: string | undefined;
  if (prompt.ticketAnswers.size > 0) {
    const ticket = TICKET_IN_INPUT.exec(example.input)?.[1];
    dictated = ticket === undefined ? undefined : prompt.ticketAnswers.get(ticket);
    if (dictated !== undefined && withTrace) steps.push(`The instructions give the answer for this ticket: ${dictated}.`);
  }
  let output = dictated ?? PROBLEMS[example.kind].answerOf(example.params, choices);
  const slipped = rng.next() < slip;
  if (slipped) {
    output = slipDigit(output, rng.nextUint32(), rng.nextUint32());
    if (withTrace) steps.push('Made an arithmetic slip.');
  }

  const score = output === example.answer ? 1 : 0;
  const evaluation: Evaluation = { score, output, feedback: score === 1 ? 'Correct.' : explainMiss(example, output, misses, dictated, slipped) };
  if (withTrace) evaluation.trace = { followed, steps } satisfies TaskModelTrace;
  return evaluation;
}

function explainMiss(
  example: DemoExample,
  output: string,
  misses: readonly ConventionOption[],
  dictated: string | undefined,
  slipped: boolean,
): string {
  const reasons: string[] = [];
  if (dictated !== undefined && dictated !== example.answer) reasons.push('the answer the instructions give for this ticket is wrong');
  else if (dictated === undefined) for (const m of misses) reasons.push(m.reason ?? `the answer should use ${m.describe}`);
  if (slipped) reasons.push(reasons.length === 0 ? ARITHMETIC_REASON : 'also, the arithmetic is off');
  if (reasons.length === 0) reasons.push('the answer is wrong');
  return `Expected ${example.answer} but got ${output}: ${reasons.join('; ')}.`;
}
