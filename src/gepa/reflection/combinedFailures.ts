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
// Two limits make it adaptive (issue 47, round 3): combine only while few of the recent records
// fail (early in a run a minibatch shows many failures already, and more records add latency, not
// fixes), and add only failing records whose feedback says something the prompt does not hold yet
// (a failure told twice adds tokens, not a kind). Schedule 'auto' uses both where it runs wide.
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
  /**
   * Combine only while the share of failing records (scoring below the run's perfectScore) in the
   * recent minibatches (the parent's and the evidence's) is below this; at or above it the prompt is
   * the built-in one over the parent's records alone. Infinity (the default): always combine.
   */
  failingBelow: number;
  /** Add only failing records of other proposals, and only those whose feedback adds a sentence the prompt does not hold yet. */
  distinct: boolean;
}

export const COMBINED_LIMITS: Readonly<CombinedLimits> = { evidence: 8, maxRecords: 12, maxPromptChars: 24_000, spread: true, failingBelow: Number.POSITIVE_INFINITY, distinct: false };

/** The score at or above which a record passes: the run's perfectScore, else GEPA's 1. */
const perfectScoreOf = (input: ReflectionInput): number => input.options.perfectScore ?? 1;

/**
 * The share of failing records (scoring below the run's perfectScore, 1 unless it says otherwise)
 * in the parent's minibatch and the evidence's. The evidence holds only proposals that reflected
 * (a parent perfect on its minibatch skips), so late in a run the share stays near a half even
 * when most minibatches pass.
 */
export function failingShare(input: ReflectionInput): number {
  const scores = [...input.scores, ...input.evidence.flatMap((e) => e.scores)];
  const perfect = perfectScoreOf(input);
  return scores.length === 0 ? 0 : scores.filter((s) => s < perfect).length / scores.length;
}

/** A record's feedback as sentences, normalized (case, numbers, spacing), for telling failures apart. */
function feedbackSentences(record: ReflectiveRecord): string[] {
  const feedback = String(record['Feedback'] ?? '');
  return feedback
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.toLowerCase().replace(/\d+(\.\d+)?/g, '#').replace(/\s+/g, ' ').trim())
    .filter((s) => s !== '');
}

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
function otherRecords(input: ReflectionInput, component: string, own: readonly ReflectiveRecord[], spread: boolean, failingOnly: boolean): ReflectiveRecord[] {
  const seen = new Set(own.map((r) => JSON.stringify(r)));
  const n = input.evidence.length;
  const start = spread && n > 0 ? Number.parseInt(sha256Hex(JSON.stringify(own)).slice(0, 8), 16) % n : 0;
  const found: ReflectiveRecord[] = [];
  const perfect = perfectScoreOf(input);
  for (let k = 0; k < n; k++) {
    const e = input.evidence[(start + k) % n] as ReflectionInput['evidence'][number];
    const records = (e.dataset[component] ?? []).map((record, i) => ({ record, score: e.scores[i] ?? 0 }));
    records.sort((a, b) => a.score - b.score);
    for (const { record, score } of records) {
      if (failingOnly && score >= perfect) continue;
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
  const { evidence, maxRecords, maxPromptChars, spread, failingBelow, distinct } = { ...COMBINED_LIMITS, ...limits };
  return {
    name: 'combined',
    evidence,
    ask: (input) =>
      promptPerComponent(input, (component, text, records) => {
        const write = (all: readonly ReflectiveRecord[]) => buildReflectionPrompt(component, text, all, input.options.context);
        const chosen = [...records];
        let prompt = write(chosen);
        if (failingShare(input) >= failingBelow) return prompt;
        const said = new Set(distinct ? records.flatMap(feedbackSentences) : []);
        for (const record of otherRecords(input, component, records, spread, distinct)) {
          if (chosen.length >= maxRecords) break;
          if (distinct) {
            const sentences = feedbackSentences(record);
            if (sentences.every((x) => said.has(x))) continue;
            for (const x of sentences) said.add(x);
          }
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

/**
 * The limits schedule 'auto' reflects with where it runs wide (runtimeModel/autoSchedule.ts,
 * autoCombinesFailures): at most 6 records, other proposals' failures only with feedback the prompt
 * does not hold yet, and only while under 90% of the recent records fail. At 128 slots, 48 seeds a
 * task, against the built-in prompt under the same schedule: bookkeeping 1.32 s to quality instead
 * of 1.40 s, final val 0.970 / test 0.947 instead of 0.963 / 0.939; demo 1.86 s / 0.784 instead
 * of 2.00 s / 0.775; hotel and multistep as fast with val +0.009 and +0.016 (bench/README.md,
 * "Time to quality", round 3). Combining always, or at 12 records, was slower on bookkeeping.
 */
export const AUTO_COMBINED_LIMITS: Readonly<Partial<CombinedLimits>> = { maxRecords: 6, failingBelow: 0.9, distinct: true };

/** 'combined' with AUTO_COMBINED_LIMITS: what auto's wide runs reflect with when the config selects no strategy. */
export const autoCombinedFailures: ReflectionStrategy = combinedReflection(AUTO_COMBINED_LIMITS);
