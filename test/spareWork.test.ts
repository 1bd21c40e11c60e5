// Spare work (speculate 'rebase-gate-idle'): work that takes only a worker slot nothing else wants,
// and leaves the queue unstarted, unpaid, uncached and unlogged once its requester drops it; work
// someone waits for that shares a queued spare call makes it ordinary work. The slots first, then
// the evaluation service, on simulated time.
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { runOnSimulatedClock, sleep, steppingClock } from '../src/clock.js';
import { WorkerSlots } from '../src/evaluation/workerSlots.js';
import { EvaluationService } from '../src/evaluation/evaluationService.js';
import { localExecutor } from '../src/executors/localExecutor.js';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import type { Adapter, Candidate, Evaluation, WorkJournal } from '../src/types.js';

function slotsOf(capacity: number) {
  const clock = steppingClock(new SimulatedClock());
  return { clock, slots: new WorkerSlots({ capacity, clock }) };
}

describe('WorkerSlots.runSpare', () => {
  it('runs spare work only once no other work waits, whatever came first', async () => {
    const { clock, slots } = slotsOf(1);
    const order: string[] = [];
    const job = (name: string) => async () => {
      order.push(name);
      await sleep(clock, 10);
      return name;
    };
    const never = new AbortController().signal;
    const all = Promise.all([slots.run('parent', job('parent')), slots.runSpare('child', job('spare'), undefined, never).result, slots.run('parent', job('parent 2')), slots.run('valset', job('valset'))]);
    await runOnSimulatedClock(clock, all);
    // Under finish-first a parent goes last of the ordinary kinds; spare work goes after it.
    expect(order).toEqual(['parent', 'valset', 'parent 2', 'spare']);
  });

  it('dropped unstarted: rejects at once and never takes a slot; started: runs to its end', async () => {
    const { clock, slots } = slotsOf(1);
    const drop = new AbortController();
    let ran = 0;
    const busy = slots.run('valset', () => sleep(clock, 50));
    const spare = slots.runSpare('child', async () => ran++, undefined, drop.signal);
    let rejected = false;
    spare.result.catch(() => (rejected = true));
    drop.abort();
    await Promise.resolve();
    expect(rejected).toBe(true);
    await runOnSimulatedClock(clock, busy);
    expect(ran).toBe(0);
    expect(clock.now()).toBe(50);
    expect(slots.busySlotMs()).toBe(50);
    // Asked for with its drop signal already aborted: dropped at once, nothing left to promote.
    const gone = slots.runSpare('child', async () => ran++, undefined, drop.signal);
    const goneResult = expect(gone.result).rejects.toThrow();
    expect(gone.promote()).toBe(false);
    await goneResult;
    // Started before the drop (a slot was free): it is not touched.
    const late = new AbortController();
    const running = slots.runSpare('child', () => sleep(clock, 20).then(() => 'done'), undefined, late.signal);
    late.abort();
    await expect(runOnSimulatedClock(clock, running.result)).resolves.toBe('done');
    expect(ran).toBe(0);
    expect(slots.busySlotMs()).toBe(70);
  });

  it('promoted: queued at its kind, ahead of a later ordinary kind, and no longer dropped', async () => {
    const { clock, slots } = slotsOf(1);
    const order: string[] = [];
    const drop = new AbortController();
    const job = (name: string) => async () => {
      order.push(name);
      await sleep(clock, 10);
    };
    const first = slots.run('valset', job('valset'));
    const spare = slots.runSpare('child', job('spare'), undefined, drop.signal);
    const parent = slots.run('parent', job('parent'));
    expect(spare.promote()).toBe(true);
    drop.abort();
    await runOnSimulatedClock(clock, Promise.all([first, spare.result, parent]));
    expect(order).toEqual(['valset', 'spare', 'parent']);
  });
});

/** An adapter whose every call takes 10 ms of simulated time and scores the text's length. */
function service(clock: ReturnType<typeof steppingClock>, capacity: number, journal?: WorkJournal) {
  let calls = 0;
  /** Each call made, as `text:exampleId:occurrence` (the identity an executor is given). */
  const made: string[] = [];
  const adapter: Adapter<string> = {
    evaluate: async (candidate: Candidate, example: string) => {
      calls++;
      await sleep(clock, 10);
      return { score: String(candidate.system).length, feedback: example };
    },
    buildReflectiveDataset: () => ({}),
  } as unknown as Adapter<string>;
  const slots = new WorkerSlots({ capacity, clock });
  const local = localExecutor(adapter);
  const executor: typeof local = {
    evaluate: (candidate, example, id, ctx, call) => {
      made.push(`${String(candidate.system)}:${id}:${call?.occurrence}`);
      return local.evaluate(candidate, example, id, ctx, call);
    },
  };
  const evaluations = new EvaluationService({ examples: ['a', 'b', 'c', 'd'], executor, reflectionLm: async () => '', slots, signal: new AbortController().signal, ...(journal ? { journal } : {}) });
  return { evaluations, slots, calls: () => calls, made };
}

const candidate: Candidate = { system: 'Be brief.' };
const hash = candidateHash(candidate);
const blocker: Candidate = { system: 'Busy.' };

describe('EvaluationService, spare requests', () => {
  it('calls not started when the requester drops them are not made, paid, cached or logged; the reply says what the started ones paid', async () => {
    const clock = steppingClock(new SimulatedClock());
    const logged: string[] = [];
    const journal = { recordEvaluation: (key: string) => logged.push(key), replayEvaluation: () => undefined, recordReflection: () => {}, replayReflection: () => undefined } as unknown as WorkJournal;
    const { evaluations, calls, made } = service(clock, 2, journal);
    const drop = new AbortController();
    const other: Candidate = { system: 'Other.' };
    // Both slots busy until 10 ms; then one ordinary call and the spare request's first call take them, its second waits.
    const busy = evaluations.evaluate({ candidate: blocker, hash: candidateHash(blocker), exampleIds: [0, 1], captureTraces: false, kind: 'valset' });
    const spare = evaluations.evaluate({ candidate, hash, exampleIds: [2, 3], captureTraces: false, kind: 'child', spare: drop.signal, idleSlotsOnly: true });
    const queued = evaluations.evaluate({ candidate: other, hash: candidateHash(other), exampleIds: [2], captureTraces: false, kind: 'parent' });
    await runOnSimulatedClock(clock, sleep(clock, 15));
    drop.abort();
    // Asked for at once (a verdict's gate, sent right after the drop): the dropped call is not in the cache, so it is made afresh.
    const needed = evaluations.evaluate({ candidate, hash, exampleIds: [3], captureTraces: false, kind: 'child' });
    await expect(runOnSimulatedClock(clock, spare)).rejects.toMatchObject({ name: 'EvaluationIncomplete', paidCalls: 1 });
    await runOnSimulatedClock(clock, Promise.all([busy, queued]));
    expect(clock.now()).toBe(20);
    // Four calls ended (two for the slots' first work, the queued one, the spare one that started), and the needed one started.
    expect(evaluations.metricCalls).toBe(5);
    expect(calls()).toBe(5);
    expect(logged.sort()).toEqual([`${candidateHash(blocker)}:0:0`, `${candidateHash(blocker)}:1:0`, `${candidateHash(other)}:2:0`, `${hash}:2:0`].sort());
    await expect(runOnSimulatedClock(clock, needed)).resolves.toMatchObject({ paidCalls: 1, evaluations: [{ score: 9, feedback: 'd' }] });
    expect(evaluations.metricCalls).toBe(5);
    // The dropped call gave its occurrence back: the call made afresh is the first of its key, as if none had been asked for.
    expect(made.filter((m) => m.startsWith('Be brief.'))).toEqual(['Be brief.:2:0', 'Be brief.:3:0']);
    // The call that started before the drop is an answer: served from the cache.
    const again = await runOnSimulatedClock(clock, evaluations.evaluate({ candidate, hash, exampleIds: [2, 3], captureTraces: false, kind: 'child' }));
    expect(again.paidCalls).toBe(0);
    expect(evaluations.metricCalls).toBe(5);
  });

  it('a request that is not spare, sharing a queued spare call, makes it ordinary work that the drop does not touch', async () => {
    const clock = steppingClock(new SimulatedClock());
    const { evaluations } = service(clock, 1);
    const drop = new AbortController();
    const busy = evaluations.evaluate({ candidate: blocker, hash: candidateHash(blocker), exampleIds: [0], captureTraces: false, kind: 'valset' });
    const spare = evaluations.evaluate({ candidate, hash, exampleIds: [1], captureTraces: false, kind: 'child', spare: drop.signal, idleSlotsOnly: true });
    spare.catch(() => {});
    const needed = evaluations.evaluate({ candidate, hash, exampleIds: [1], captureTraces: false, kind: 'child' });
    const later = evaluations.evaluate({ candidate: blocker, hash: candidateHash(blocker), exampleIds: [2], captureTraces: false, kind: 'parent' });
    drop.abort();
    const [, reply, spareReply] = await runOnSimulatedClock(clock, Promise.all([busy, needed, spare, later]));
    expect(reply.evaluations).toEqual([{ score: 9, feedback: 'b' } satisfies Evaluation]);
    // The spare request made the call (it paid); the one that needed it shared it.
    expect([spareReply.paidCalls, reply.paidCalls]).toEqual([1, 0]);
    expect(evaluations.metricCalls).toBe(3);
    // Promoted to 'child' work: it ran before the later parent evaluation.
    expect(clock.now()).toBe(30);
  });
});
