// Side information (gepa's ASI): what an evaluator says about one call besides its score. Reads
// the evaluator's answer (a number, or { score, sideInfo }) into a score and a side information
// record with its log() lines; pulls objective scores out of it (`scores`, and
// `<component>_specific_info.scores` as `<component>::<name>`, as gepa does); and turns it into the
// records the reflection reads for one component.
import { describeValue } from '../../errors/describeValue.js';

/** Any JSON-able record: diagnostics, expected vs actual, errors, images (see `image`). */
export type SideInfo = Record<string, unknown>;

/** What an evaluator may return: a score, or a score with side information. */
export type EvaluatorResult =
  | number
  | {
      /** The candidate's score (higher is better). */
      score: number;
      /** Diagnostics for the reflection model; numbers under `scores` are objective scores. */
      sideInfo?: SideInfo;
    };

/** The key log() lines go to (gepa's), and the key they go to when the side information already has it. */
export const LOG_KEY = 'log';
export const LOG_FALLBACK_KEY = '_gepa_log';

export interface ReadResult {
  score: number;
  sideInfo: SideInfo;
  /** Why the answer could not be read (the call is then a failed call scoring 0). */
  problem?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The evaluator's answer as a score and side information, its log lines added. `who` names the
 * function in a problem, `where` the example (a batchEvaluator's: " for example 2 of 3").
 */
export function readEvaluatorResult(value: unknown, lines: readonly string[], who = 'evaluator', where = ''): ReadResult {
  let score: unknown = value;
  let sideInfo: SideInfo = {};
  if (isRecord(value)) {
    score = value.score;
    if (value.sideInfo !== undefined && !isRecord(value.sideInfo)) {
      return { score: 0, sideInfo: withLog({}, lines), problem: `${where === '' ? '' : `the ${who}'s answer${where}: `}sideInfo must be a record, got ${JSON.stringify(value.sideInfo)}` };
    }
    sideInfo = { ...(value.sideInfo as SideInfo | undefined) };
  }
  if (typeof score !== 'number' || !Number.isFinite(score)) {
    return { score: 0, sideInfo: withLog(sideInfo, lines), problem: `the ${who} returned ${describe(value)}${where}, not a finite number or { score, sideInfo }` };
  }
  return { score, sideInfo: withLog(sideInfo, lines) };
}

function describe(value: unknown): string {
  if (value instanceof Promise) return 'a Promise inside its answer';
  return describeValue(value);
}

/** The log lines under `log`, or under `_gepa_log` when the evaluator's side information has a `log` of its own (kept as it is). */
export function withLog(sideInfo: SideInfo, lines: readonly string[]): SideInfo {
  if (lines.length === 0) return sideInfo;
  const key = LOG_KEY in sideInfo ? LOG_FALLBACK_KEY : LOG_KEY;
  return { ...sideInfo, [key]: lines.join('\n') };
}

/** Objective scores: the numbers under `scores`, and under `<component>_specific_info.scores` as `<component>::<name>`. */
export function objectiveScores(sideInfo: SideInfo, components: readonly string[]): Record<string, number> | undefined {
  const objectives: Record<string, number> = {};
  const add = (scores: unknown, prefix: string) => {
    if (!isRecord(scores)) return;
    for (const [name, v] of Object.entries(scores)) if (typeof v === 'number' && Number.isFinite(v)) objectives[prefix + name] = v;
  };
  add(sideInfo.scores, '');
  for (const c of components) {
    const specific = sideInfo[`${c}_specific_info`];
    if (isRecord(specific)) add(specific.scores, `${c}::`);
  }
  return Object.keys(objectives).length > 0 ? objectives : undefined;
}

/**
 * One record the reflection on `component` reads: the score, the side information's fields
 * (`scores` renamed to say higher is better), `<component>_specific_info` merged in, other
 * components' specific information left out.
 */
export function reflectionRecord(score: number, sideInfo: SideInfo, component: string): Record<string, unknown> {
  const record: Record<string, unknown> = { Score: score };
  for (const [key, value] of Object.entries(sideInfo)) {
    if (key === 'scores') record['Scores (higher is better)'] = value;
    else if (key === `${component}_specific_info`) Object.assign(record, isRecord(value) ? value : { [key]: value });
    else if (!key.endsWith('_specific_info')) record[key] = value;
  }
  return record;
}
