// The 'combined' reflection strategy (issue 47): reflection that reads many failures at once. Each
// component's prompt is the built-in one over the parent's records followed by records of other
// recent proposals' parents (the run's evidence, newest first), the lowest-scoring first, each
// marked as run with another version of the text, up to a cap on records and on the prompt's
// length. It costs no metric call: the records are results the run already paid for. The idea is
// ComBEE's (Li et al. 2026, arXiv 2604.04247; gepa's ComBEEReflectionLM): a capable model given
// several minibatches' failures fixes several things in one edit. ComBEE splits large batches
// into about sqrt(n) groups and reduces their proposals in a second call because one prompt with
// too many traces loses the specific insights ("context overload"); here the cap keeps the prompt
// within one group's size instead (12 records: ComBEE's group at n = 40 and duplication 2 holds ~13).
import { sha256Hex } from '../../identity/contentHash.js';
import { buildReflectionPrompt } from '../proposer/reflectionPrompt.js';
import { promptPerComponent, readPerComponent } from './promptPerComponent.js';
import type { ReflectionInput, ReflectionStrategy } from './reflectionStrategy.js';

/** What the strategy reads at most. */
export interface CombinedLimits {
  /** Recent results of other proposals kept and read. */
  evidence: number;
  /** Records in one prompt, the parent's included (the parent's are always all there). */
  maxRecords: number;
  /** Characters of one prompt; records of other proposals stop before it is exceeded. */
  maxPromptChars: number;
  /** Proposals made at the same time start at different results (else all start at the newest). */
  spread: boolean;
}

export const COMBINED_LIMITS: Readonly<CombinedLimits> = { evidence: 8, maxRecords: 12, maxPromptChars: 24_000, spread: true };

/** The field an added record carries first, so the model knows its failures may be fixed already. */
export const OTHER_VERSION_FIELD = 'Text version';
export const OTHER_VERSION_NOTE = 'another recent version, not the current text: what failed here may already be fixed in it';

type ReflectiveRecord = Record<string, unknown>;

/**
 * The other proposals' records for `component`, without repeats of `own`: whole results in turn,
 * each one's lowest-scoring records first. `spread` starts at a result chosen by the proposal's
 * own records (a hash, no randomness), so proposals made at the same time read different results
 * rather than all the same newest ones; otherwise the newest come first.
 */
function otherRecords(input: ReflectionInput, component: string, own: readonly ReflectiveRecord[], spread: boolean): ReflectiveRecord[] {
  const seen = new Set(own.map((r) => JSON.stringify(r)));
  const n = input.evidence.length;
  const start = spread && n > 0 ? Number.parseInt(sha256Hex(JSON.stringify(own)).slice(0, 8), 16) % n : 0;
  const found: ReflectiveRecord[] = [];
  for (let k = 0; k < n; k++) {
    const e = input.evidence[(start + k) % n] as ReflectionInput['evidence'][number];
    const records = (e.dataset[component] ?? []).map((record, i) => ({ record, score: e.scores[i] ?? 0 }));
    records.sort((a, b) => a.score - b.score);
    for (const { record } of records) {
      const key = JSON.stringify(record);
      if (seen.has(key)) continue;
      seen.add(key);
      found.push({ [OTHER_VERSION_FIELD]: OTHER_VERSION_NOTE, ...record });
    }
  }
  return found;
}

/** A 'combined' strategy with its own limits (the registered one uses COMBINED_LIMITS). */
export function combinedReflection(limits: Partial<CombinedLimits> = {}): ReflectionStrategy {
  const { evidence, maxRecords, maxPromptChars, spread } = { ...COMBINED_LIMITS, ...limits };
  return {
    name: 'combined',
    evidence,
    ask: (input) =>
      promptPerComponent(input, (component, text, records) => {
        const write = (all: readonly ReflectiveRecord[]) => buildReflectionPrompt(component, text, all, input.options.context);
        const chosen = [...records];
        let prompt = write(chosen);
        for (const record of otherRecords(input, component, records, spread)) {
          if (chosen.length >= maxRecords) break;
          const longer = write([...chosen, record]);
          if (longer.length > maxPromptChars) break;
          chosen.push(record);
          prompt = longer;
        }
        return prompt;
      }),
    read: readPerComponent,
  };
}

export const combinedFailures: ReflectionStrategy = combinedReflection();
