// optimizeAnything's refiner (gepa's RefinerConfig): the prompt that asks the refiner model for a
// refined candidate from the attempts so far (each with its score and side information), the
// candidate read from its JSON answer, and the evaluation answered: the original's own, score
// included (a score always describes its own candidate), with the attempts under `refinement`,
// which the reflection reads, and the refined candidates that scored better in `refined`: where
// the example is the whole valset they join the pool as candidates of their own (gepa keeps the
// better score on the original's text instead, so its best score and best text can disagree).
import { framingSections, type ReflectionContext } from '../../gepa/proposer/reflectionPrompt.js';
import { imageMarker, isImagePart } from '../../gepa/proposer/promptImages.js';
import { textLength } from '../../gepa/reflection/lengthLimit.js';
import type { Refinement, RefinementAttempt } from '../../evaluation/refinement.js';
import type { SlotAwareLanguageModel } from '../../lm/slotAwareModel.js';
import type { Candidate, Evaluation, RefinedCandidate } from '../../gepa/core/adapter.js';
import { candidateHash } from '../../gepa/core/candidateHash.js';
import { sideInfoOf } from './anythingAdapter.js';

/** The key of the side information that records a refined evaluation's attempts. */
export const REFINEMENT_KEY = 'refinement';

const attemptRecord = (a: RefinementAttempt): Record<string, unknown> =>
  a.evaluation ? { candidate: a.candidate, score: a.evaluation.score, sideInfo: sideInfoOf(a.evaluation) } : { candidate: a.candidate, error: a.error };

/** The refiner's prompt: the goal, the candidate to refine as JSON, every attempt so far, the answer's form. */
export function refinerPrompt(context: ReflectionContext, attempts: readonly RefinementAttempt[]): string {
  const current = attempts.filter((a) => a.evaluation).reduce((best, a) => ((a.evaluation?.score ?? -Infinity) > (best.evaluation?.score ?? -Infinity) ? a : best));
  return [
    'You refine a candidate that an evaluator scores (higher is better), using what the evaluator said about it.',
    '',
    ...framingSections(context),
    '## The candidate to refine (JSON: component name -> text)',
    '```json',
    JSON.stringify(current.candidate, null, 2),
    '```',
    '',
    '## Every attempt so far, with its score and the evaluator\'s side information',
    '```json',
    // Images stand as their markers: the refiner reads JSON.
    JSON.stringify(attempts.map(attemptRecord), (_key, value: unknown) => (isImagePart(value) ? imageMarker(value) : value), 2),
    '```',
    '',
    'Fix what the side information says goes wrong and keep what works. Reply with a JSON object',
    'with the same component names and the refined texts, and nothing else.',
  ].join('\n');
}

/** The refined candidate in a reply: a JSON object of texts for the candidate's components (fences allowed). */
export function readRefinedCandidate(reply: string, original: Candidate): Candidate | { error: string } {
  const body = reply.trim().replace(/^```[\w-]*\n?/, '').replace(/\n?```$/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return { error: `the refiner's reply is not JSON: ${(error as Error).message}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { error: 'the refiner\'s reply is not a JSON object of texts' };
  const entries = Object.entries(parsed as Record<string, unknown>);
  const stray = entries.find(([name, text]) => !(name in original) || typeof text !== 'string');
  if (stray) return { error: `the refiner's reply has ${stray[0] in original ? `a non-text value for "${stray[0]}"` : `no component "${stray[0]}"`}` };
  return { ...original, ...(parsed as Record<string, string>) };
}

/**
 * The original's evaluation, its score its own, with the attempts recorded beside its side
 * information, and the refinements that improved on the best before them (each refined from it:
 * the refiner is asked about the best attempt so far) as `refined`, in order.
 */
export function keptEvaluation(attempts: readonly RefinementAttempt[]): Evaluation {
  const original = attempts[0]?.evaluation as Evaluation;
  if (attempts.length === 1) return original;
  const refined: RefinedCandidate[] = [];
  let best = original.score;
  for (const a of attempts.slice(1)) {
    if (!a.evaluation || !(a.evaluation.score > best)) continue;
    best = a.evaluation.score;
    refined.push({ candidate: a.candidate, hash: candidateHash(a.candidate), evaluation: a.evaluation });
  }
  const refinement = { improved: refined.length > 0, attempts: attempts.slice(1).map(attemptRecord) };
  return { ...original, output: { ...sideInfoOf(original), [REFINEMENT_KEY]: refinement }, ...(refined.length > 0 ? { refined } : {}) };
}

/**
 * The Refinement the evaluation service runs for optimizeAnything. With maxCandidateLength
 * (`maxLength`), a refined candidate with a text over it is a failed attempt, never evaluated (the
 * next refinement reads why).
 */
export function anythingRefinement(lm: SlotAwareLanguageModel, maxRefinements: number, context: ReflectionContext, maxLength?: number): Refinement {
  const read = (reply: string, original: Candidate): Candidate | { error: string } => {
    const refined = readRefinedCandidate(reply, original);
    if ('error' in refined || maxLength === undefined) return refined;
    const over = Object.entries(refined).find(([, text]) => textLength(text) > maxLength);
    return over ? { error: `the refined ${over[0]} is ${textLength(over[1])} characters, over maxCandidateLength (${maxLength})` } : refined;
  };
  return { lm, maxRefinements, prompt: (attempts) => refinerPrompt(context, attempts), read, combine: keptEvaluation };
}
