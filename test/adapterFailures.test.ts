// An adapter that throws on some examples costs those calls, scores them 0 with the error as
// feedback, and the run completes; a language model that fails makes a skipped proposal; failures
// that cannot be transient (every seed call, ten alike in a row) fail the run: it rejects with
// RunFailedError, whose partial result says 'error' and why.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { optimize } from '../src/index.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import type { Adapter } from '../src/gepa/core/adapter.js';
import { KEYWORDS, toyExamples, toyTask, type ToyExample } from './support/toyTask.js';
import { failedRun } from './support/failedRun.js';

describe('failures inside the run', () => {
  it('a throwing adapter call is paid, scored 0 and the run completes', async () => {
    const clock = steppingClock(new SimulatedClock());
    const task = toyTask({ clock, evalMs: () => 10, throwsOn: (_c, e) => e.id === 'v1' || e.id === 't2' });
    const valset = toyExamples('v', KEYWORDS.slice(0, 4));
    const feedbacks: string[] = [];
    const adapter: Adapter<ToyExample> = {
      evaluate: (c, e, ctx) => task.adapter.evaluate(c, e, ctx),
      makeReflectiveDataset: (_c, results) => {
        for (const r of results) feedbacks.push(r.evaluation.feedback ?? '');
        return { instructions: results.map((r) => ({ Inputs: r.example, Feedback: r.evaluation.feedback })) };
      },
    };
    const result = await runOnSimulatedClock(
      clock,
      optimize({ seedCandidate: { instructions: 'Answer.' }, trainset: toyExamples('t', KEYWORDS.slice(0, 6)), valset, adapter, reflectionLm: task.reflectionLm, maxMetricCalls: 300, clock }),
    );
    expect(result.metricCalls).toBe(task.evaluateCalls);
    // v1 ('beta') throws for every candidate, so no candidate scores on it.
    for (const row of result.valSubscores) expect(row[1]).toBe(0);
    // t2 ('gamma') throws too, so its feedback never teaches 'gamma': alpha and delta are all
    // that can be learned for the valset.
    expect(Math.max(...result.valScores)).toBe(0.5);
    expect(feedbacks.some((f) => f === 'The evaluation failed with an error: cannot run t2')).toBe(true);
    expect(result.stopReason).toBe('maxMetricCalls');
  });

  it('failFast stops the run at the first adapter exception, naming it', async () => {
    const clock = steppingClock(new SimulatedClock());
    const task = toyTask({ clock, evalMs: () => 10, throwsOn: (_c, e) => e.id === 't2' });
    const config = { seedCandidate: { instructions: 'Answer.' }, trainset: toyExamples('t', KEYWORDS.slice(0, 6)), valset: toyExamples('v', KEYWORDS.slice(0, 4)), adapter: task.adapter, reflectionLm: task.reflectionLm, maxMetricCalls: 300, clock };
    const { result, cause } = await failedRun(runOnSimulatedClock(clock, optimize({ ...config, failFast: true })));
    expect(result.error).toBe('failFast: cannot run t2');
    expect((cause as Error).message).toBe('cannot run t2');
    expect(result.failures).toEqual({ total: 1, byKind: { adapter: 1 } });
    // Without it the same exceptions are recorded failures and the run spends its budget.
    const clock2 = steppingClock(new SimulatedClock());
    const lenient = await runOnSimulatedClock(clock2, optimize({ ...config, clock: clock2, adapter: toyTask({ clock: clock2, evalMs: () => 10, throwsOn: (_c, e) => e.id === 't2' }).adapter }));
    expect(lenient.stopReason).toBe('maxMetricCalls');
    expect(lenient.failures!.byKind['adapter']).toBeGreaterThan(1);
  });

  it('a failing reflection model gives skipped proposals with the reason, and ten in a row stop the run', async () => {
    const clock = steppingClock(new SimulatedClock());
    const errors: string[] = [];
    const task = toyTask({ clock, evalMs: () => 10 });
    const { result } = await failedRun(
      runOnSimulatedClock(
        clock,
        optimize({
          seedCandidate: { instructions: 'Answer.' },
          trainset: toyExamples('t', KEYWORDS.slice(0, 6)),
          adapter: task.adapter,
          reflectionLm: async () => {
            throw new Error('HTTP 503 from the model');
          },
          maxMetricCalls: 600,
          clock,
          onEvent: (e) => {
            if (e.type === 'error') errors.push(e.message);
          },
        }),
      ),
    );
    expect(errors[0]).toMatch(/^task 1\/0: reflection failed: HTTP 503 from the model$/);
    expect(result.candidates).toHaveLength(1);
    // The tenth failure with one cause is systemic: the run stops instead of paying for parents' minibatches.
    expect(result.error).toBe('10 reflection calls in a row failed with the same cause: HTTP 503 from the model');
    expect(errors).toContain(result.error);
    expect(result.failures).toEqual({ total: 10, byKind: { other: 10 }, reflections: 10 });
    expect(result.metricCalls).toBeLessThan(600);
    const reasons = new Set(result.proposals.map((p) => `${p.outcome}: ${p.reason}`));
    expect(reasons).toEqual(
      new Set(['skipped: reflection proposed no new text (instructions: reflection failed: HTTP 503 from the model)', 'skipped: stopped before it finished (error)']),
    );
  });

  it('a dataset builder that throws or rejects skips that proposal with the reason, and the run goes on', async () => {
    const clock = steppingClock(new SimulatedClock());
    const task = toyTask({ clock, evalMs: () => 10 });
    let builds = 0;
    const adapter: Adapter<ToyExample> = {
      evaluate: (c, e, ctx) => task.adapter.evaluate(c, e, ctx),
      // First build throws, second rejects, then every build works.
      makeReflectiveDataset: (_c, results) => {
        builds++;
        if (builds === 1) throw new Error('no traces for this batch');
        if (builds === 2) return Promise.reject(new Error('trace store offline'));
        return { instructions: results.map((r) => ({ Inputs: r.example, Feedback: r.evaluation.feedback })) };
      },
    };
    const result = await runOnSimulatedClock(
      clock,
      optimize({ seedCandidate: { instructions: 'Answer.' }, trainset: toyExamples('t', KEYWORDS.slice(0, 6)), adapter, reflectionLm: task.reflectionLm, maxMetricCalls: 120, clock, skipPerfectScore: false }),
    );
    const reasons = result.proposals.map((p) => p.reason);
    expect(reasons[0]).toBe('building the reflective dataset failed: no traces for this batch');
    expect(reasons[1]).toBe('building the reflective dataset failed: trace store offline');
    expect(result.proposals[0]?.outcome).toBe('skipped');
    // Later proposals reflect and find candidates; the budget holds (no stop at a perfect best).
    expect(result.candidates.length).toBeGreaterThan(1);
    expect(result.metricCalls).toBeLessThanOrEqual(120);
    expect(result.stopReason).toBe('maxMetricCalls');
  });

  it('an invalid evaluation (no numeric score) is recorded as a failed call', async () => {
    const clock = steppingClock(new SimulatedClock());
    const { result } = await failedRun(
      runOnSimulatedClock(
        clock,
        optimize({
          seedCandidate: { instructions: 'Answer.' },
          trainset: toyExamples('t', KEYWORDS.slice(0, 3)),
          adapter: { evaluate: async () => ({ score: 'high' }) as never },
          reflectionLm: async () => '```\nx\n```',
          maxMetricCalls: 3,
          clock,
        }),
      ),
    );
    expect(result.valSubscores[0]).toEqual([0, 0, 0]);
    expect(result.metricCalls).toBe(3);
    expect(result.failures).toEqual({ total: 3, byKind: { 'invalid-score': 3 } });
    expect(result.error).toMatch(/^every call of the seed candidate's valset evaluation failed \(3 of 3\); the first: .*finite number.*"high"/);
  });
});
