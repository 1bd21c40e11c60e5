// The report's observation of a run: the adapter and the reflection model are wrapped without
// changing what the runtime sees (their extra fields and methods stay), each call's tokens and
// dollars are tallied per model, and the valset answers are the untraced evaluations.
import { describe, expect, it } from 'vitest';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import { observeRun } from '../src/report/runObserver.js';
import type { RunLogRecord } from '../src/storage/runLog.js';
import type { Adapter, Candidate, EvalContext, Evaluation } from '../src/gepa/core/adapter.js';
import type { LmReply } from '../src/gepa/core/languageModel.js';
import type { OptimizeConfig } from '../src/config/optimizeConfig.js';

type Ex = { input: string; answer: string };
const trainset: Ex[] = [{ input: 'a?', answer: 'A' }, { input: 'b?', answer: 'B' }];
const valset: Ex[] = [{ input: 'c?', answer: 'C' }, { input: 'd?', answer: 'D' }];

class CountingAdapter implements Adapter<Ex> {
  readonly model = 'task-x';
  calls = 0;
  estimateMaxCostUsd() {
    return 0.5;
  }
  async evaluate(candidate: Candidate, example: Ex, ctx: EvalContext): Promise<Evaluation> {
    this.calls++;
    const right = (candidate.p ?? '').includes(example.answer);
    return { score: right ? 1 : 0, output: `${ctx.captureTraces ? 'traced ' : ''}${example.input}`, feedback: right ? 'ok' : `expected ${example.answer}`, usage: { promptTokens: 10, completionTokens: 2 }, costUsd: 0.001 };
  }
}

const ctx = (captureTraces: boolean): EvalContext => ({ captureTraces, signal: new AbortController().signal });

describe('observeRun', () => {
  const adapter = new CountingAdapter();
  const lm = Object.assign(async (): Promise<LmReply> => ({ text: 'x', usage: { promptTokens: 100, completionTokens: 20 } }), { managesSlots: true as const, model: 'refl-y' });
  const config: OptimizeConfig<Ex> = { seedCandidate: { p: 'C' }, trainset, valset, adapter, reflectionLm: lm, maxMetricCalls: 10 };
  const { config: observed, observation } = observeRun(config);

  it('keeps what the runtime reads off the adapter and the model', () => {
    expect(observed.adapter).not.toBe(adapter);
    expect((observed.adapter as CountingAdapter).estimateMaxCostUsd()).toBe(0.5);
    expect((observed.reflectionLm as typeof lm).managesSlots).toBe(true);
    expect((observed.reflectionLm as typeof lm).model).toBe('refl-y');
    expect(observed.maxMetricCalls).toBe(10);
  });

  it('tallies tokens and dollars per model, and keeps the untraced valset answers', async () => {
    const candidate = { p: 'C' };
    await observed.adapter.evaluate(candidate, valset[0] as Ex, ctx(true));
    await observed.adapter.evaluate(candidate, valset[0] as Ex, ctx(false));
    await observed.adapter.evaluate(candidate, valset[1] as Ex, ctx(false));
    await observed.adapter.evaluate(candidate, trainset[0] as Ex, ctx(true));
    await (observed.reflectionLm as typeof lm)();
    expect(adapter.calls).toBe(4);
    const [task, reflection] = observation.usage();
    expect(task).toMatchObject({ role: 'task', model: 'task-x', calls: 4, callsWithTokens: 4, inputTokens: 40, outputTokens: 8, unpricedCalls: 0 });
    expect(task?.costUsd).toBeCloseTo(0.004, 12);
    expect(reflection).toEqual({ role: 'reflection', model: 'refl-y', calls: 1, callsWithTokens: 1, inputTokens: 100, outputTokens: 20, costUsd: 0, unpricedCalls: 1 });
    expect(observation.valsetAnswers(candidate)).toEqual([
      { example: 'c?', evaluation: { score: 1, output: 'c?', feedback: 'ok' } },
      { example: 'd?', evaluation: { score: 0, output: 'd?', feedback: 'expected D' } },
    ]);
    // A candidate never evaluated on the valset here: the examples, no answers.
    expect(observation.valsetAnswers({ p: 'other' })).toEqual([{ example: 'c?' }, { example: 'd?' }]);
  });

  it('reads the same figures from a run log: every process\'s calls, answers past failed calls, untraced first', () => {
    const hash = candidateHash({ p: 'C' });
    // Valset examples have table ids 2 and 3 (after the trainset's 0 and 1).
    const records: RunLogRecord[] = [
      { t: 'eval', key: `${hash}:2:1`, evaluation: { score: 0.5, output: 'traced c?', usage: { promptTokens: 10, completionTokens: 2 }, costUsd: 0.001 } },
      { t: 'eval', key: `${hash}:2:0`, evaluation: { score: 0, feedback: 'The evaluation failed with an error: HTTP 503', failure: { kind: 'http', message: 'HTTP 503' }, costUsd: 0 } },
      { t: 'eval', key: `${hash}:2:0`, evaluation: { score: 1, output: 'c?', feedback: 'ok', usage: { promptTokens: 10, completionTokens: 2 }, costUsd: 0.001 } },
      { t: 'eval', key: `${hash}:3:1`, evaluation: { score: 0, output: 'traced d?', feedback: 'expected D' } },
      { t: 'reflect', promptHash: 'abc', reply: { text: 'x', usage: { promptTokens: 100, completionTokens: 20 }, costUsd: 0.01 } },
      { t: 'decision', n: 0, kind: 'finished', id: 'p1-0' },
    ];
    const logged = observation.fromLog(records, [2, 3]);
    expect(logged.source).toBe('the run log');
    const [task, reflection] = logged.usage();
    expect(task).toMatchObject({ role: 'task', model: 'task-x', calls: 4, callsWithTokens: 2, inputTokens: 20, outputTokens: 4 });
    expect(reflection).toMatchObject({ role: 'reflection', model: 'refl-y', calls: 1, inputTokens: 100, outputTokens: 20 });
    expect(reflection?.costUsd).toBeCloseTo(0.01, 12);
    expect(logged.valsetAnswers({ p: 'C' })).toEqual([
      { example: 'c?', evaluation: { score: 1, output: 'c?', feedback: 'ok' } },
      { example: 'd?', evaluation: { score: 0, output: 'traced d?', feedback: 'expected D' } },
    ]);
    expect(observation.source).toBe('this process');
  });
});
