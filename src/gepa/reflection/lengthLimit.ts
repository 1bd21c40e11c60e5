// maxCandidateLength, a rule on every strategy's texts (gepa issue #272): a proposed component text
// longer than the limit is sent back to the reflection model once, with the limit stated; a text
// still over it (or a retry that failed) refuses the proposal with the reason, before its child
// is evaluated, so no metric call is spent on it. The limit is on each component's text, in
// characters (Unicode code points, as Python's len counts them); the seed is the user's, never checked.
import { extractInstruction } from '../proposer/extractInstruction.js';
import type { ComponentReply } from '../proposer/childCandidate.js';
import type { Candidate } from '../core/adapter.js';
import type { ReflectionAsk, ReflectionReply } from './reflectionStrategy.js';

/** The length rule's round: the texts as the strategy gave them, and which components were sent back (in ask order). */
export interface LengthRetry {
  texts: ComponentReply[];
  sentBack: string[];
}

/** Characters as the limit counts them: Unicode code points. */
export const textLength = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/** The start of a refused proposal's reason. */
export const REFUSED_TOO_LONG = 'proposed text over maxCandidateLength';

/** The components whose new text (different from the parent's) is over the limit, in the order chosen. */
export function overLimit(parent: Candidate, components: readonly string[], texts: readonly ComponentReply[], limit: number | undefined): string[] {
  if (limit === undefined) return [];
  return components.filter((name, i) => {
    const text = texts[i]?.text;
    return text !== null && text !== undefined && text !== parent[name] && textLength(text) > limit;
  });
}

/** The retry prompt: the text, its length and the limit, and the request for a complete shorter text in a fenced block. */
export function shortenPrompt(component: string, text: string, limit: number): string {
  return [
    `The new text you proposed for \`${component}\` is ${textLength(text)} characters long, but it must be at most ${limit} characters.`,
    '',
    '```',
    text,
    '```',
    '',
    `Rewrite it in at most ${limit} characters. Keep every instruction and fact that changes what it does,`,
    'say each once, and drop repetition, examples and filler. Reply with the complete new text inside',
    'a single ``` fenced block.',
  ].join('\n');
}

/** The retry round's requests: one prompt per text sent back. */
export function retryAsks(sentBack: readonly string[], components: readonly string[], texts: readonly ComponentReply[], limit: number): ReflectionAsk[] {
  return sentBack.map((name) => ({ kind: 'prompt', prompt: shortenPrompt(name, texts[components.indexOf(name)]?.text ?? '', limit) }));
}

/**
 * The retry round's replies folded into the texts: each sent-back text replaced by its retry when
 * that fits, or the refusal's reason naming every text that still does not.
 */
export function afterRetry(retry: LengthRetry, components: readonly string[], replies: readonly ReflectionReply[], limit: number): { texts: ComponentReply[] } | { refused: string } {
  const texts = [...retry.texts];
  const problems: string[] = [];
  retry.sentBack.forEach((name, i) => {
    const reply = replies[i];
    const first = textLength(texts[components.indexOf(name)]?.text ?? '');
    if (!reply || !reply.ok || !('text' in reply)) {
      problems.push(`${name}: ${first} characters, and the retry failed${reply && !reply.ok ? `: ${reply.error}` : ''}`);
      return;
    }
    const text = extractInstruction(reply.text);
    if (text === null) problems.push(`${name}: ${first} characters, and the retry gave no text`);
    else if (textLength(text) > limit) problems.push(`${name}: ${first} characters, ${textLength(text)} after one retry`);
    else texts[components.indexOf(name)] = { text, note: 'unchanged text' };
  });
  return problems.length === 0 ? { texts } : { refused: `${REFUSED_TOO_LONG} (${limit} characters): ${problems.join('; ')}` };
}
