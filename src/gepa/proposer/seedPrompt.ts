// A seedless start (optimizeAnything without a seedCandidate): the prompt that asks the reflection
// model for the first candidate, from the objective, the background and a few examples of the
// data, and the seed read from its reply (the text in its fenced block, as a reflection's).
import { candidateHash } from '../core/candidateHash.js';
import type { Candidate } from '../core/adapter.js';
import { extractInstruction } from './extractInstruction.js';
import { framingSections, type ReflectionContext } from './reflectionPrompt.js';

/** How many examples of the data the seedless prompt shows (gepa shows three). */
export const SEED_PROMPT_EXAMPLES = 3;

function shown(example: unknown): string {
  if (typeof example === 'string') return example;
  const json = JSON.stringify(example);
  return json === undefined ? String(example) : json;
}

/** The seedless prompt: what the artifact is for, the domain, a few inputs it will be scored on, the answer's form (and, with maxCandidateLength, its limit). */
export function buildSeedPrompt(context: ReflectionContext, examples: readonly unknown[], maxLength?: number): string {
  const samples = examples.slice(0, SEED_PROMPT_EXAMPLES);
  return [
    'Write the first version of a text artifact that an evaluator will score (higher is better). An',
    'optimizer will then improve it step by step from the evaluator\'s feedback, so a sound, complete',
    'starting point matters more than polish.',
    '',
    ...framingSections(context),
    ...(samples.length > 0 ? ['## Inputs it will be scored on (a few of them)', ...samples.map((e, i) => `${i + 1}. ${shown(e)}`), ''] : []),
    'Reply with the complete artifact inside a single ``` fenced block, nothing else.',
    ...(maxLength === undefined ? [] : [`The artifact must be at most ${maxLength} characters long.`]),
  ].join('\n');
}

/** The seed a seedless prompt's reply holds, as the one component `component`; or why there is none. */
export function seedFromReply(reply: string, component: string): { seedCandidate: Candidate; seedHash: string } | { error: string } {
  const text = extractInstruction(reply);
  if (text === null) return { error: 'the reflection model wrote no seed candidate (its reply held no text)' };
  const seedCandidate = { [component]: text };
  return { seedCandidate, seedHash: candidateHash(seedCandidate) };
}
