// The 'combined' reflection strategy (src/gepa/reflection/combinedFailures.ts) and the history
// of recent results the run keeps for it (evidenceHistory.ts): what goes into a prompt beside the
// parent's records (other results' lowest-scoring records, marked, without repeats, up to the
// caps), the history's order (launch order, one entry per proposal, cut), and that a run hands a
// strategy the history in both schedules, never more than it asked for.
import { describe, expect } from 'vitest';
import { buildReflectionPrompt } from '../src/gepa/proposer/reflectionPrompt.js';
import { combinedFailures, combinedReflection, failingShare, OTHER_VERSION_FIELD, OTHER_VERSION_NOTE } from '../src/gepa/reflection/combinedFailures.js';
import { keepEvidence } from '../src/gepa/reflection/evidenceHistory.js';
import { builtInPrompt } from '../src/gepa/reflection/builtInPrompt.js';
import type { ReflectionAsk, ReflectionEvidence, ReflectionInput, ReflectionStrategy } from '../src/gepa/reflection/reflectionStrategy.js';
import { test } from './support/toyRun.js';

const own = [{ Inputs: 'q0', Feedback: 'wrong unit' }];
const evidenceOf = (proposal: string, records: Array<[string, number]>): ReflectionEvidence => ({
  candidate: { instructions: `text of ${proposal}` },
  role: 'parent',
  dataset: { instructions: records.map(([q]) => ({ Inputs: q, Feedback: `failed ${q}` })) },
  scores: records.map(([, s]) => s),
  proposal,
});
const input = (evidence: ReflectionEvidence[]): ReflectionInput => ({
  parent: { instructions: 'Answer.' },
  components: ['instructions'],
  dataset: { instructions: own },
  scores: [0.5],
  evidence,
  options: {},
});
const promptOf = (s: ReflectionStrategy, i: ReflectionInput) => ((s.ask(i) as ReflectionAsk[])[0] as { prompt: string }).prompt;
const marked = (q: string) => ({ [OTHER_VERSION_FIELD]: OTHER_VERSION_NOTE, Inputs: q, Feedback: `failed ${q}` });

describe("the 'combined' strategy", () => {
  test('without evidence it asks exactly what the built-in prompt does; it asks the run for 8 results', () => {
    expect(combinedFailures.ask(input([]))).toEqual(builtInPrompt.ask(input([])));
    expect(combinedFailures.evidence).toBe(8);
  });

  test("other results' records follow the parent's: each result's lowest-scoring first, marked, no repeats, at most maxRecords", () => {
    const evidence = [evidenceOf('p2-0', [['a', 1], ['b', 0], ['q0', 0]]), evidenceOf('p1-0', [['c', 0.5], ['d', 0.2]])];
    const strategy = combinedReflection({ spread: false, maxRecords: 4 });
    // q0 is the parent's own record (its feedback differs, so it is another record) and stays.
    const expected = [...own, marked('b'), marked('q0'), marked('a')];
    expect(promptOf(strategy, input(evidence))).toBe(buildReflectionPrompt('instructions', 'Answer.', expected));
    const all = combinedReflection({ spread: false, maxRecords: 100 });
    expect(promptOf(all, input([...evidence, evidence[0] as ReflectionEvidence]))).toBe(
      buildReflectionPrompt('instructions', 'Answer.', [...own, marked('b'), marked('q0'), marked('a'), marked('d'), marked('c')]),
    );
  });

  test('records stop before the prompt would pass maxPromptChars; the parent’s are always there', () => {
    const evidence = [evidenceOf('p1-0', [['x'.repeat(150), 0], ['y'.repeat(150), 0]])];
    const bare = buildReflectionPrompt('instructions', 'Answer.', own).length;
    const strategy = combinedReflection({ spread: false, maxPromptChars: bare + 700 });
    const prompt = promptOf(strategy, input(evidence));
    expect(prompt.length).toBeLessThanOrEqual(bare + 700);
    expect(prompt).toContain('x'.repeat(150));
    expect(prompt).not.toContain('y'.repeat(150));
    expect(promptOf(combinedReflection({ maxPromptChars: 10 }), input(evidence))).toBe(buildReflectionPrompt('instructions', 'Answer.', own));
  });

  test('failingBelow: combines only while under that share of the recent records fail (the parent’s and the evidence’s)', () => {
    // Records scoring below 1: the parent's one (0.5), and 'b' and 'c' of the four others: 3 of 5.
    const evidence = [evidenceOf('p2-0', [['a', 1], ['b', 0]]), evidenceOf('p1-0', [['c', 0.5], ['d', 1]])];
    expect(failingShare(input(evidence))).toBeCloseTo(3 / 5);
    const bare = buildReflectionPrompt('instructions', 'Answer.', own);
    expect(promptOf(combinedReflection({ spread: false, failingBelow: 0.6 }), input(evidence))).toBe(bare);
    expect(promptOf(combinedReflection({ spread: false, failingBelow: 0.61 }), input(evidence))).not.toBe(bare);
    expect(promptOf(combinedReflection({ spread: false, failingBelow: 1 }), input([evidenceOf('p1-0', [['b', 0]])]))).toBe(bare);
  });

  test("a run's perfectScore decides what fails: the share, and which records 'distinct' adds", () => {
    // Scores out of 10 (perfectScore 10): 5 and 9 fail, 10 passes; read against GEPA's 1, none would.
    const evidence = [evidenceOf('p1-0', [['a', 10], ['b', 9]])];
    const outOfTen: ReflectionInput = { ...input(evidence), scores: [5], options: { perfectScore: 10 } };
    expect(failingShare(outOfTen)).toBeCloseTo(2 / 3);
    expect(failingShare({ ...outOfTen, options: {} })).toBe(0);
    expect(promptOf(combinedReflection({ spread: false, distinct: true }), outOfTen)).toBe(
      buildReflectionPrompt('instructions', 'Answer.', [...own, marked('b')]),
    );
  });

  test('distinct: only failing records, and only those whose feedback adds a sentence (numbers and case aside)', () => {
    const rec = (q: string, feedback: string) => ({ Inputs: q, Feedback: feedback });
    const evidence: ReflectionEvidence = {
      candidate: { instructions: 'other' },
      role: 'parent',
      dataset: { instructions: [rec('a', 'Wrong unit.'), rec('b', 'wrong UNIT.'), rec('c', 'Late by 3 days. Wrong unit.'), rec('d', 'Late by 5 days.'), rec('e', 'Fine.')] },
      scores: [0, 0.1, 0.2, 0.3, 1],
      proposal: 'p1-0',
    };
    const mark = (r: Record<string, unknown>) => ({ [OTHER_VERSION_FIELD]: OTHER_VERSION_NOTE, ...r });
    // 'a' repeats the parent's feedback, 'b' too (case), 'd' repeats 'c''s (numbers), 'e' does not fail.
    const ownUnit = [{ Inputs: 'q0', Feedback: 'Wrong unit.' }];
    const withOwn: ReflectionInput = { ...input([evidence]), dataset: { instructions: ownUnit } };
    expect(promptOf(combinedReflection({ spread: false, distinct: true }), withOwn)).toBe(
      buildReflectionPrompt('instructions', 'Answer.', [...ownUnit, mark(rec('c', 'Late by 3 days. Wrong unit.'))]),
    );
  });
});

describe('the history of results', () => {
  test('newest first in launch order (not arrival), one entry per proposal, cut to keep', () => {
    const e = (id: string) => evidenceOf(id, [['a', 0]]);
    let history: ReflectionEvidence[] = [];
    for (const id of ['p1-0', 'p3-0', 'p2-1', 'p2-0', 'merge-4', 'p3-0']) history = keepEvidence(history, e(id), 3);
    expect(history.map((h) => h.proposal)).toEqual(['p3-0', 'p2-1', 'p2-0']);
    expect(keepEvidence([], e('p1-0'), 0)).toEqual([]);
  });

  for (const schedule of [{ kind: 'async', inFlight: 4 }, { kind: 'batched', parents: 2, perParent: 2 }] as const) {
    test(`a ${schedule.kind} run hands the strategy recent results (at most its evidence), a run without it none`, async ({ toyRun }) => {
      const seen: number[] = [];
      const watching = (base: ReflectionStrategy, evidence?: number): ReflectionStrategy => ({
        ...base,
        name: 'watching',
        ...(evidence !== undefined ? { evidence } : {}),
        ask: (i) => {
          seen.push(i.evidence.length);
          return base.ask(i);
        },
      });
      const { result } = await toyRun({ schedule, maxMetricCalls: 150, reflectionStrategy: watching(combinedReflection(), 3) });
      expect(result.proposals.length).toBeGreaterThan(6);
      expect(Math.max(...seen)).toBe(3);
      expect(seen[0]).toBe(0);
      seen.length = 0;
      await toyRun({ schedule, maxMetricCalls: 150, reflectionStrategy: watching(builtInPrompt) });
      expect(Math.max(...seen)).toBe(0);
    });
  }
});
