// A proposal's evaluation plan (src/gepa/proposer/evaluationPlan.ts): which candidate each
// evaluation is of, on which examples, as which work, with traces only for the parent's; the
// request ids that tell a reply what it answers.
import { describe, expect, it } from 'vitest';
import { askOfReply, EVALUATION_REQUEST_IDS, evaluationAsk, isPrefetchRequestId, prefetchAsks, rebaseSideOf, reflectionRequestId, type EvaluationPlanView } from '../src/gepa/proposer/evaluationPlan.js';
import { startRace } from '../src/gepa/proposer/valsetRaceRun.js';

const parent = { instructions: 'Answer.' };
const child = { instructions: 'Answer with the keyword.' };
const onto = { instructions: 'Answer briefly.' };
const view: EvaluationPlanView = { parent, parentHash: 'hp', minibatch: [3, 1], valIds: [10, 11, 12, 13, 14], child, childHash: 'hc' };

describe('the evaluation plan', () => {
  it("the parent's evaluation: the parent on the minibatch, as parent work, the only one with traces", () => {
    expect(evaluationAsk('parent', view)).toEqual({ requestId: 0, candidate: parent, hash: 'hp', exampleIds: [3, 1], kind: 'parent', captureTraces: true });
  });

  it("the child's: the child on the same minibatch; a merge's child is merge work", () => {
    expect(evaluationAsk('child', view)).toEqual({ requestId: 1, candidate: child, hash: 'hc', exampleIds: [3, 1], kind: 'child', captureTraces: false });
    expect(evaluationAsk('child', { ...view, merge: { child, parentSums: [1, 1] } }).kind).toBe('merge');
  });

  it('the valset: the child on every valset id; a race asks for its next chunk under the same request id', () => {
    expect(evaluationAsk('valset', view)).toEqual({ requestId: 2, candidate: child, hash: 'hc', exampleIds: [10, 11, 12, 13, 14], kind: 'valset', captureTraces: false });
    // Positions 3 and 0 first: the chunk is valset ids 13 and 10.
    const race = startRace({ order: [3, 0, 1, 2, 4], chunk: 2, margin: 0, parentScores: [1, 1, 1, 1, 1], bestScores: [1, 1, 1, 1, 1] }, view.valIds);
    expect(evaluationAsk('race-chunk', { ...view, race })).toEqual({ requestId: 2, candidate: child, hash: 'hc', exampleIds: [13, 10], kind: 'valset', captureTraces: false });
  });

  it("a rebase gate: the rebased child and the candidate it was rebased onto, on the gate's examples, as child work", () => {
    const rebase = { onto, ontoHash: 'ho', exampleIds: [1] };
    expect(evaluationAsk('rebased-child', { ...view, rebase })).toEqual({ requestId: 3, candidate: child, hash: 'hc', exampleIds: [1], kind: 'child', captureTraces: false });
    expect(evaluationAsk('rebase-onto', { ...view, rebase })).toEqual({ requestId: 4, candidate: onto, hash: 'ho', exampleIds: [1], kind: 'child', captureTraces: false });
  });

  it('asking for a child evaluation before the child is made is a named bug, not a request with no candidate', () => {
    const { child: _c, childHash: _h, ...unmade } = view;
    expect(() => evaluationAsk('child', unmade)).toThrow('proposer: the child evaluation was asked for before the child was made');
    expect(() => evaluationAsk('rebase-onto', view)).toThrow(/before the rebase was decided/);
  });

  it('request ids: every evaluation its own but the race chunks (the valset, one in flight at a time); reflections apart from them, one per component', () => {
    const ids = Object.entries(EVALUATION_REQUEST_IDS).filter(([name]) => name !== 'race-chunk').map(([, id]) => id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(EVALUATION_REQUEST_IDS['race-chunk']).toBe(EVALUATION_REQUEST_IDS.valset);
    const reflections = [0, 1, 2].map(reflectionRequestId);
    expect(reflections.some((id) => ids.includes(id))).toBe(false);
    expect(reflections.map(askOfReply)).toEqual([0, 1, 2]);
    expect([rebaseSideOf(EVALUATION_REQUEST_IDS['rebased-child']), rebaseSideOf(EVALUATION_REQUEST_IDS['rebase-onto'])]).toEqual(['child', 'onto']);
  });

  it("a gate evaluated ahead asks as the real gate would (untraced child work on the gate's examples), under ids of its own", () => {
    const asks = prefetchAsks({ child, childHash: 'hc2', onto, ontoHash: 'ho' }, [1]);
    expect(asks).toEqual([
      { requestId: 5, candidate: child, hash: 'hc2', exampleIds: [1], kind: 'child', captureTraces: false },
      { requestId: 6, candidate: onto, hash: 'ho', exampleIds: [1], kind: 'child', captureTraces: false },
    ]);
    expect(asks.every((a) => isPrefetchRequestId(a.requestId))).toBe(true);
    expect(Object.values(EVALUATION_REQUEST_IDS).some(isPrefetchRequestId)).toBe(false);
  });
});
