// The optimizer's state serializes: at every state a run visits (each microstep, seen through
// XState's inspection), `JSON.stringify(snapshot.context)` works and parses back to the same
// context, the run's state (a RunState held by reference) as its plain values with its summary
// first, which RunState.fromJSON reads back to the same state (the wiring actor is a reference:
// JSON gives its id), batched, async and in an async resume from a run directory; and so does a
// persisted snapshot. Its guards read that state only: evaluating one twice gives the same answer
// and leaves the journal and the context as they were. And the package's optimizerMachine still
// runs a plain OptimizeConfig to the result optimize() gives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, toPromise, type InspectionEvent } from 'xstate';
import { runOnSimulatedClock, steppingClock, type SteppingClock } from '../src/clock.js';
import { optimize, optimizerMachine, type OptimizeConfig, type OptimizeResult } from '../src/index.js';
import { RunJournal } from '../src/entries/storage.js';
import { RunState, type RunStateData } from '../src/gepa/search/runState.js';
import type { RunLogRecord } from '../src/storage/runLog.js';
import { toyRunConfig } from './support/toyRun.js';
import type { ToyExample } from './support/toyTask.js';
import { sanitizeContext } from '../examples/inspectorView.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-plain-context-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The toy run's config on `clock`: a small budget and valset, a named reflection model (a run directory needs one). */
const toyConfig = (clock: SteppingClock, config: Partial<Omit<OptimizeConfig<ToyExample>, 'clock'>>): OptimizeConfig<ToyExample> =>
  toyRunConfig({ clock, valsetSize: 4, maxMetricCalls: 80, telemetry: false, runIdentity: { reflectionLm: 'toy' }, ...config }).config;

/** What the inspection saw of the optimizer: the states it was in, and how many contexts were checked. */
interface Seen {
  states: Set<string>;
  checked: number;
  /** Async: the furthest the run walked its logged path, and that path's length. */
  walked: { taken: number; path: number };
}

/** An inspect listener that checks the optimizer's context at every microstep and snapshot. */
function checkingEveryContext(seen: Seen): (inspectionEvent: unknown) => void {
  return (inspectionEvent) => {
    const event = inspectionEvent as InspectionEvent;
    if (event.type !== '@xstate.microstep' && event.type !== '@xstate.snapshot') return;
    if (event.actorRef.sessionId !== event.rootId) return;
    const snapshot = event.snapshot as { value?: unknown; context?: Record<string, unknown> };
    if (!snapshot.context) return;
    const context = snapshot.context;
    const json = JSON.stringify(context);
    const parsed = JSON.parse(json) as Record<string, unknown> & { run: RunStateData };
    // Every part round-trips but the wiring actor, a reference written as its id, and the run's
    // state, written as its plain values (its summary first), which read back to the same state.
    const run = context.run as RunState;
    expect(Object.keys(parsed.run)[0]).toBe('summary');
    expect(parsed.run.summary).toEqual(run.summary());
    expect(JSON.stringify(RunState.fromJSON(parsed.run))).toBe(JSON.stringify(run));
    expect(parsed).toEqual({ ...context, wiring: { xstate$$type: 1, id: 'run' }, run: JSON.parse(JSON.stringify(run.toJSON())) });
    seen.states.add(String(snapshot.value));
    seen.checked++;
    const resume = (context.walk as { position?: { taken: number; path: unknown[] } }).position;
    if (resume && resume.taken >= seen.walked.taken) seen.walked = { taken: resume.taken, path: resume.path.length };
  };
}

const newSeen = (): Seen => ({ states: new Set(), checked: 0, walked: { taken: 0, path: 0 } });

async function inspectedRun(config: (clock: SteppingClock) => Partial<Omit<OptimizeConfig<ToyExample>, 'clock'>>): Promise<{ result: OptimizeResult; seen: Seen }> {
  const clock = steppingClock(new SimulatedClock());
  const seen = newSeen();
  const result = await runOnSimulatedClock(clock, optimize({ ...toyConfig(clock, config(clock)), inspect: checkingEveryContext(seen) }));
  return { result, seen };
}

describe("the optimizer's context is plain data", () => {
  it('batched: JSON round-trips the context at every state of the run', async () => {
    const { result, seen } = await inspectedRun(() => ({ schedule: { kind: 'batched', parents: 2, perParent: 2 } }));
    expect(result.stopReason).toBe('maxMetricCalls');
    expect([...seen.states].sort()).toEqual(['deciding', 'done', 'finishing', 'planning', 'seeding', 'stepping']);
    expect(seen.checked).toBeGreaterThan(20);
  });

  it('async: JSON round-trips the context at every state, draining included', async () => {
    const { result, seen } = await inspectedRun(() => ({ schedule: { kind: 'async', inFlight: 3 }, maxStepsWithoutImprovement: 4, maxMetricCalls: 400 }));
    expect(result.stopReason).toBe('maxStepsWithoutImprovement');
    expect([...seen.states].sort()).toEqual(['deciding', 'done', 'draining', 'finishing', 'flowing', 'seeding']);
  });

  it('async resume from a run directory: the walk of the logged path is in the context, and round-trips with it', async () => {
    const runDir = join(scratch, 'resume');
    const schedule = { kind: 'async', inFlight: 3 } as const;
    const cut = await inspectedRun((clock) => {
      const abort = new AbortController();
      clock.setTimeout(() => abort.abort(), 400);
      return { schedule, runDir, signal: abort.signal };
    });
    expect(cut.result.stopReason).toBe('aborted');
    expect(cut.seen.states.has('stopping')).toBe(true);
    const resumed = await inspectedRun(() => ({ schedule, runDir }));
    expect(resumed.result.stopReason).toBe('maxMetricCalls');
    // The resumed run took every decision the first one logged, in order, then went on.
    expect(resumed.seen.walked.path).toBeGreaterThan(0);
    expect(resumed.seen.walked.taken).toBeGreaterThan(resumed.seen.walked.path);
  });
});

describe("the optimizer's guards read its state only", () => {
  it('outOfTurn, evaluated twice, gives the same answer and leaves the journal and the context unchanged', () => {
    // A logged path where p1 finished first; p1 and p2 are in flight and p2 reports first.
    const records: RunLogRecord[] = [
      { t: 'eval', key: 'some-candidate:0:0', evaluation: { score: 1 } },
      { t: 'decision', n: 0, kind: 'finished', id: 'p1-0' },
    ];
    const journal = new RunJournal(records, () => {});
    const calls: string[] = [];
    const counted = new Proxy(journal, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push(String(key));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const clock = steppingClock(new SimulatedClock());
    const actor = createActor(optimizerMachine, { input: { ...toyConfig(clock, { schedule: { kind: 'async', inFlight: 2 } }), journal: counted } as OptimizeConfig<unknown> });
    const inFlight = { 'p1-0': { id: 'p1-0' }, 'p2-0': { id: 'p2-0' } };
    const start = actor.getSnapshot().context;
    const run = RunState.fromJSON({ ...start.run.toJSON(), proposals: inFlight } as unknown as RunStateData);
    const context = { ...start, run } as unknown as Parameters<NonNullable<typeof optimizerMachine.implementations.guards.outOfTurn>>[0]['context'];
    const outOfTurn = optimizerMachine.implementations.guards.outOfTurn as (args: { context: typeof context; event: unknown }, params: undefined) => boolean;
    const event = { type: 'proposal.finished', id: 'p2-0', spend: { paidCalls: 4, reflectionCalls: 0, reflectionCostUsd: 0, costUsd: 0 } };
    const before = JSON.stringify(context);
    calls.length = 0;
    const answers = [outOfTurn({ context, event }, undefined), outOfTurn({ context, event }, undefined)];
    expect(answers).toEqual([true, true]);
    expect(calls).toEqual([]);
    expect(JSON.stringify(context)).toBe(before);
  });
});

describe("the package's optimizerMachine", () => {
  it('createActor(optimizerMachine, { input: plainConfig }) runs to the result optimize() gives', async () => {
    const run = async (how: 'actor' | 'optimize'): Promise<OptimizeResult> => {
      const clock = steppingClock(new SimulatedClock());
      const config = toyConfig(clock, { schedule: { kind: 'batched', parents: 2, perParent: 1 } });
      if (how === 'optimize') return runOnSimulatedClock(clock, optimize(config));
      const actor = createActor(optimizerMachine, { input: config as OptimizeConfig<unknown>, clock });
      const done = toPromise(actor);
      actor.start();
      return runOnSimulatedClock(clock, done);
    };
    const [viaActor, viaOptimize] = [await run('actor'), await run('optimize')];
    expect(viaActor.candidates.length).toBeGreaterThan(1);
    expect(viaActor).toEqual(viaOptimize);
  });

  it('an invalid config leaves the actor in an error snapshot with the ConfigError, as the run is made', () => {
    const clock = steppingClock(new SimulatedClock());
    const actor = createActor(optimizerMachine, { input: { ...toyConfig(clock, {}), maxMetricCalls: -1 } as OptimizeConfig<unknown> });
    const snapshot = actor.getSnapshot();
    expect(snapshot.status).toBe('error');
    expect(String((snapshot as { error?: unknown }).error)).toMatch(/ConfigError.*maxMetricCalls/);
  });
});

describe("the run's state seen from outside", () => {
  it('a persisted snapshot of the optimizer holds the run state, which reads back to the state it was taken of', async () => {
    const clock = steppingClock(new SimulatedClock());
    const config = toyConfig(clock, { schedule: { kind: 'async', inFlight: 3 } });
    const actor = createActor(optimizerMachine, { input: config as OptimizeConfig<unknown>, clock });
    // Taken at every snapshot of the run: mid-step, mid-fold, at the end.
    let checked = 0;
    actor.subscribe((snapshot) => {
      const live = snapshot.context.run;
      const persisted = JSON.parse(JSON.stringify(actor.getPersistedSnapshot())) as { context: { run: RunStateData } };
      expect(persisted.context.run.summary).toEqual(live.summary());
      // Every field of the state, not only what toJSON writes: the restored state's own fields equal the live one's.
      const fields = (run: RunState) => JSON.parse(JSON.stringify({ ...run })) as unknown;
      expect(fields(RunState.fromJSON(persisted.context.run))).toEqual(fields(live));
      checked++;
    });
    const done = toPromise(actor);
    actor.start();
    const result = await runOnSimulatedClock(clock, done);
    expect(result.candidates.length).toBeGreaterThan(1);
    expect(checked).toBeGreaterThan(20);
  });

  it("an inspector (examples/inspectorView.ts) shows the run's summary, a few numbers, not its whole state", async () => {
    const views: Array<Record<string, unknown>> = [];
    const clock = steppingClock(new SimulatedClock());
    const inspect = (inspectionEvent: unknown) => {
      const event = inspectionEvent as InspectionEvent;
      if (event.type !== '@xstate.snapshot' || event.actorRef.sessionId !== event.rootId) return;
      const context = (event.snapshot as { context?: Record<string, unknown> }).context;
      if (context) views.push(sanitizeContext(context) as Record<string, unknown>);
    };
    const result = await runOnSimulatedClock(clock, optimize({ ...toyConfig(clock, { schedule: { kind: 'async', inFlight: 3 } }), inspect }));
    const last = views[views.length - 1] as { run: { candidates: number; bestScore: number; metricCalls: { spent: number }; inFlight: string[] } };
    expect(last.run).toMatchObject({ candidates: result.candidates.length, bestScore: result.bestScore, metricCalls: { spent: result.metricCalls }, inFlight: [] });
    // Mid-run views name the proposals in flight.
    expect(views.some((v) => (v.run as { inFlight: string[] }).inFlight.length > 0)).toBe(true);
    for (const view of views) expect(JSON.stringify(view).length).toBeLessThan(1000);
  });
});
