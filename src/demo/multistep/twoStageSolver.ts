// How the simulated two-stage model solves one problem: the planner stage decides the steps, the
// answer stage computes and formats the result. Per step the problem needs, the model follows its
// stage's rule when the prompt states one (unless it overlooks it, more often in cluttered
// prompts, or the rule clashes with another), or else does what it does by habit; then it may
// slip on the arithmetic. Every draw comes from a hash of (both texts, example, task seed).
// The grade is partial: 1 for the exact answer, 0.5 for the right value in the wrong format.
import { Rng } from '../../gepa/core/rng.js';
import type { Evaluation } from '../../gepa/core/adapter.js';
import { slipDigit } from '../answerFormat.js';
import { combineHashes, hashString, unitFromHash } from '../hash32.js';
import type { MultistepExample } from './multistepDataset.js';
import { FAMILIES } from './problemFamilies.js';
import type { StagePrompt } from './stagePrompt.js';
import { ruleOf, STAGE_RULES, type RuleId } from './stageRules.js';

/** Share of habit choices that depend on the prompts' exact wording; the rest belong to the problem. */
const PROMPT_SENSITIVITY = 0.1;
/** Chance of getting a step right when two stated rules clash over it. */
const CLASH_RIGHT = 0.2;
const BASE_SLIP = 0.08;
const CAREFUL_SLIP = 0.035;
const RULE_NUMBER = new Map<RuleId, number>(STAGE_RULES.map((r, i) => [r.id, i + 1]));

export interface TwoStageTrace {
  /** The planner stage's output. */
  plan: string[];
  /** The answer stage's output. */
  answer: string;
  /** What the model did per step and why. */
  steps: string[];
}

export function solveTwoStage(
  planner: StagePrompt,
  answer: StagePrompt,
  example: MultistepExample,
  seed: number,
  withTrace: boolean,
): Evaluation {
  const family = FAMILIES[example.family];
  const exampleHash = hashString(example.id, seed);
  const rng = new Rng(combineHashes(planner.hash, answer.hash ^ exampleHash, seed));
  const notes: string[] = [];
  const right = new Map<RuleId, boolean>();

  const decide = (id: RuleId): boolean => {
    const rule = ruleOf(id);
    const prompt = rule.stage === 'planner' ? planner : answer;
    const stated = prompt.stated.get(id);
    if (stated !== undefined && rng.next() >= prompt.overlook) {
      if (prompt.clashing.has(id)) {
        if (withTrace) notes.push(`${rule.stage}: "${stated.sentence}" clashes with another instruction; unsure which applies.`);
        return rng.next() < CLASH_RIGHT;
      }
      if (withTrace) notes.push(`${rule.stage}: followed "${stated.sentence}".`);
      return !stated.wrong;
    }
    const u = rng.next() < PROMPT_SENSITIVITY ? rng.next() : unitFromHash(combineHashes(exampleHash, RULE_NUMBER.get(id) ?? 0, seed));
    if (withTrace) notes.push(`${rule.stage}: ${stated === undefined ? 'no instruction' : `overlooked "${stated.sentence}"`} for this step; went by habit.`);
    return u < rule.habit;
  };

  for (const step of family.steps) right.set(step, decide(step));
  const formatRight = decide(family.format);
  const careful = decide('verify');
  const done = (id: RuleId) => right.get(id) ?? true;

  const value = family.value(example.params, done);
  const valueRight = family.render(value, true, example.params) === family.render(family.value(example.params, () => true), true, example.params);
  let output = family.render(value, formatRight, example.params);
  const slipped = rng.next() < (careful ? CAREFUL_SLIP : BASE_SLIP);
  if (slipped) output = slipDigit(output, rng.nextUint32(), rng.nextUint32());

  const score = output === example.answer ? 1 : valueRight && !slipped ? 0.5 : 0;
  const wrongSteps = family.steps.filter((s) => !done(s));
  const evaluation: Evaluation = { score, output, feedback: feedbackOf(example, output, score, valueRight, wrongSteps, family.format) };
  if (withTrace) evaluation.trace = { plan: family.plan(example.params, done), answer: output, steps: notes } satisfies TwoStageTrace;
  return evaluation;
}

/** The grader's words: which stage went wrong and why (the first wrong stage only). */
function feedbackOf(
  example: MultistepExample,
  output: string,
  score: number,
  valueRight: boolean,
  wrongSteps: readonly RuleId[],
  format: RuleId,
): string {
  if (score === 1) return 'Correct.';
  const head = `Expected ${example.answer} but got ${output}.`;
  if (!valueRight && wrongSteps.length > 0) {
    const planned = wrongSteps.find((s) => ruleOf(s).stage === 'planner');
    if (planned !== undefined) return `${head} The plan went wrong: ${ruleOf(planned).reason}.`;
    return `${head} The plan is right, but the answer stage went wrong: ${ruleOf(wrongSteps[0] as RuleId).reason}.`;
  }
  if (score === 0.5) return `${head} The value is right but the answer stage wrote it wrongly: ${ruleOf(format).reason}.`;
  return `${head} ${ruleOf('verify').reason.replace(/^t/, 'T')}.`;
}
