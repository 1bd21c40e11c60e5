// A simulated LM sampled above temperature 0: the n-th repeat of a prompt goes out with a note
// the simulated models do not read, so it draws anew, as a real model would answer differently.
// Without it a deterministic simulated LM answers a repeated prompt (single-task search sends the
// same one for the same parent) with the same text forever.
import type { LanguageModel } from '../gepa/core/languageModel.js';

/** Wraps `lm` so that each repeat of a prompt gets a fresh draw; the count lives in the wrapper. */
export function sampledOnRepeat(lm: LanguageModel): LanguageModel {
  const sent = new Map<string, number>();
  return (prompt, ctx) => {
    const n = sent.get(prompt) ?? 0;
    sent.set(prompt, n + 1);
    return lm(n === 0 ? prompt : `${prompt}\n\n(sample ${n + 1})`, ctx);
  };
}
