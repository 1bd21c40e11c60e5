// trackBestOutputs (gepa's track_best_outputs): per valset example, the best score any pool
// candidate reached and the outputs of the candidates that reached it. A candidate joining with
// a higher score replaces the entry, one with an equal score adds its output; a candidate whose
// evaluation had no output counts for the score but leaves no output. Kept only when asked for:
// it holds an output per example per best candidate.
import type { ValsetBestOutputs } from './optimizeResult.js';

/** The table after candidate `index` joined with these valset scores and outputs (a new table; entries it changes are new). */
export function withCandidateOutputs(
  table: readonly ValsetBestOutputs[],
  index: number,
  subscores: readonly number[],
  outputs: ReadonlyArray<unknown> | undefined,
): ValsetBestOutputs[] {
  return subscores.map((score, j) => {
    const entry = table[j];
    const output = outputs?.[j];
    const mine = output === undefined ? [] : [{ candidate: index, output }];
    if (!entry || score > entry.score) return { score, outputs: mine };
    return score === entry.score && mine.length > 0 ? { score, outputs: [...entry.outputs, ...mine] } : entry;
  });
}
