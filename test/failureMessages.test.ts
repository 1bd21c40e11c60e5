// Failures named by what happened (issue 46 item 2): a returned NaN is "NaN" (never JSON's "null",
// also after a BullMQ worker's answer became JSON), Infinity and undefined are themselves, a
// returned string is "a string", a thrown TypeError says so, and a stopper's bad answer was
// "returned", not "threw". Library adapter, optimizeAnything evaluator, both schedules.
import { describe, expect, it } from 'vitest';
import { optimizeAnything, type RunEvent, type Schedule } from '../src/index.js';
import { describeThrown, describeValue } from '../src/errors/describeValue.js';
import { FailureTally, formatFailureCounts, validEvaluation } from '../src/evaluation/failureTally.js';
import { runFailedMessage } from '../src/run/runFailedError.js';
import { toJsonSafe } from '../src/executors/metricCallJob.js';
import { createAnythingAdapter } from '../src/adapters/anything/anythingAdapter.js';
import { EvaluationService } from '../src/evaluation/evaluationService.js';
import { WorkerSlots } from '../src/evaluation/workerSlots.js';
import { systemClock } from '../src/clock.js';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import type { Evaluation } from '../src/gepa/core/adapter.js';
import { appendingReflection } from './support/anythingTask.js';

const signal = new AbortController().signal;

describe('describeValue, describeThrown', () => {
  it('name what was returned or thrown', () => {
    expect([NaN, Infinity, -Infinity, undefined, null, 3].map((v) => describeValue(v))).toEqual(['NaN', 'Infinity', '-Infinity', 'undefined', 'null', '3']);
    expect(describeValue('0.5')).toBe('a string ("0.5")');
    expect(describeValue({ score: NaN, sideInfo: { best: Infinity } })).toBe('{"score":NaN,"sideInfo":{"best":Infinity}}');
    expect(describeThrown(new TypeError('x is not a function'))).toBe('TypeError: x is not a function');
    expect(describeThrown('oops')).toBe('a string ("oops")');
  });
});

describe('the library adapter', () => {
  const candidate = { instructions: 'x' };
  async function feedbackFor(answer: unknown): Promise<string | undefined> {
    const service = new EvaluationService<number>({
      examples: [0],
      executor: { evaluate: async () => answer as Evaluation },
      reflectionLm: async () => 'unused',
      slots: new WorkerSlots({ capacity: 1, clock: systemClock }),
      signal,
    });
    const reply = await service.evaluate({ candidate, hash: candidateHash(candidate), exampleIds: [0], captureTraces: false, kind: 'child' });
    return reply.evaluations[0]?.failure?.message;
  }

  it('says what an invalid evaluation held', async () => {
    const prefix = 'the adapter returned an invalid evaluation (the score must be a finite number): ';
    expect(await feedbackFor({ score: NaN })).toBe(`${prefix}NaN`);
    expect(await feedbackFor({ score: Infinity })).toBe(`${prefix}Infinity`);
    expect(await feedbackFor(undefined)).toBe(`${prefix}undefined`);
    expect(await feedbackFor('0.5')).toBe(`${prefix}a string ("0.5")`);
    expect(await feedbackFor({ score: 'high' })).toBe(`${prefix}{"score":"high"}`);
  });

  it("a worker's NaN stays NaN through JSON (unchecked, JSON would make it null)", () => {
    expect(toJsonSafe({ score: NaN })).toEqual({ score: null });
    expect(toJsonSafe(validEvaluation({ score: NaN }))).toEqual({
      score: 0,
      feedback: 'The evaluation failed: the adapter returned an invalid evaluation (the score must be a finite number): NaN',
      failure: { kind: 'invalid-score', message: 'the adapter returned an invalid evaluation (the score must be a finite number): NaN' },
    });
  });
});

describe("optimizeAnything's evaluator", () => {
  async function feedbackFor(evaluator: () => unknown): Promise<string | undefined> {
    const adapter = createAnythingAdapter<number>({ evaluator: evaluator as never, mode: 'generalization', stringCandidate: true, failFast: false });
    return (await adapter.evaluate({ candidate: 'x' }, 0, { captureTraces: false, signal })).feedback;
  }

  it('names what it returned, and what it threw', async () => {
    const tail = ', not a finite number or { score, sideInfo }';
    expect(await feedbackFor(() => NaN)).toBe(`the evaluator returned NaN${tail}`);
    expect(await feedbackFor(() => Infinity)).toBe(`the evaluator returned Infinity${tail}`);
    expect(await feedbackFor(() => undefined)).toBe(`the evaluator returned undefined${tail}`);
    expect(await feedbackFor(() => '0.5')).toBe(`the evaluator returned a string ("0.5")${tail}`);
    expect(await feedbackFor(() => ({ score: NaN }))).toBe(`the evaluator returned {"score":NaN}${tail}`);
    expect(
      await feedbackFor(() => {
        throw new TypeError('cannot read properties of undefined');
      }),
    ).toBe('The evaluator threw TypeError: cannot read properties of undefined');
  });

  for (const schedule of [{ kind: 'batched' }, { kind: 'async', inFlight: 2 }] as Schedule[]) {
    it(`a run's error events name a NaN as NaN (${schedule.kind})`, async () => {
      const events: RunEvent[] = [];
      await optimizeAnything({
        seedCandidate: 'x',
        // The seed scores (its side information asks the reflection for a 'y'); every proposed
        // candidate returns NaN on its second example.
        evaluator: (candidate: string, example: number) => (candidate !== 'x' && example === 1 ? NaN : { score: 0.5, sideInfo: { Next: 'y' } }),
        dataset: [0, 1, 2],
        reflectionLm: appendingReflection(),
        schedule,
        maxMetricCalls: 12,
        onEvent: (event) => events.push(event),
      }).catch(() => undefined);
      const messages = events.flatMap((e) => (e.type === 'error' ? [e.message] : []));
      expect(messages.length).toBeGreaterThan(0);
      expect(new Set(messages)).toEqual(new Set(['metric call failed: the evaluator returned NaN, not a finite number or { score, sideInfo }']));
    });
  }
});

describe('the failure counts', () => {
  it('tell metric calls and reflection calls apart, each against its own count', () => {
    const tally = new FailureTally();
    tally.record({ kind: 'http', status: 503, message: 'HTTP 503' }, 'metric');
    tally.record(undefined, 'metric');
    tally.record({ kind: 'timeout', message: 'timed out' }, 'reflection');
    const failures = tally.counts();
    expect(failures).toEqual({ total: 2, byKind: { 'http 503': 1, timeout: 1 }, reflections: 1 });
    expect(formatFailureCounts(failures)).toBe('2 failed calls: http 503 x1, timeout x1, 1 of them reflection');
    const result = { stopReason: 'error' as const, error: 'boom', failures, metricCalls: 20, reflectionCalls: 4, bestIndex: 0, bestScore: 0.5 };
    expect(runFailedMessage(result, undefined)).toBe('the run failed: boom. 1 of 20 metric calls and 1 of 4 reflection calls failed (http 503 x1, timeout x1); best so far: candidate #0 (valset score 0.500)');
    // No reflection failed: the counts stay as they were (no field), the message names metric calls alone.
    expect(new FailureTally().counts()).toEqual({ total: 0, byKind: {} });
    expect(runFailedMessage({ ...result, failures: { total: 3, byKind: { adapter: 3 } } }, undefined)).toContain('. 3 of 20 metric calls failed (adapter x3)');
  });
});
