// schedule.heldSlot: with 'free', a child held by rebaseWait gives its place among `inFlight` to
// a new proposal (its reflection overlaps the wait), within twice `inFlight` in all; with 'keep'
// (the default) nothing new starts while it waits. A run directory written before the setting
// existed resumes as it started, and so does one cut short with the new settings on. With
// 'free-early' a held child gives its place up only while the calls left pay for enough
// generations at the doubled width: as 'free' early in a run, as 'keep' near its end and in a small budget.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import type { Proposal } from '../src/gepa/core/proposal.js';
import { FREE_EARLY_GENERATIONS, HELD_SLOT_CEILING, heldSlotNow, occupiedSlots, proposalsLeft, type WidthBudgetView } from '../src/gepa/search/heldSlots.js';
import { readRunLog } from '../src/storage/runLog.js';
import { ConfigError, optimize, type OptimizeResult, type RunEvent, type Schedule } from '../src/index.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-held-slots-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A proposal record: launched at `step`, held in its wait when `held`. */
function proposal(step: number, held: boolean): Proposal {
  return {
    id: `p${step}-0`,
    step,
    task: 0,
    kind: 'reflective',
    parents: [0],
    poolSizeAtStart: 1,
    reservation: { calls: 36 } as Proposal['reservation'],
    granted: false,
    ...(held ? { outcome: { task: 0, status: 'judged', verdict: { accepted: true } } as unknown as Proposal['outcome'], child: { prompt: 'x' }, waitingFor: [`p${step - 1}-0`] } : {}),
  };
}
const records = (...held: boolean[]) => Object.fromEntries(held.map((h, i) => [`p${i + 1}-0`, proposal(i + 1, h)]));

describe('occupiedSlots', () => {
  it("counts every proposal in flight with 'keep'", () => {
    expect(occupiedSlots(records(false, true, true, false), 4, 'keep')).toBe(4);
  });

  it("counts only the proposals not held with 'free', within the ceiling, and at least one while anything is in flight", () => {
    expect(HELD_SLOT_CEILING).toBe(2);
    // 4 in flight, 2 held, K = 4: 2 places taken, 2 free.
    expect(occupiedSlots(records(false, true, true, false), 4, 'free')).toBe(2);
    // 7 in flight, 6 held, K = 4: 1 working, but only 8 - 7 = 1 more may start: 3 taken.
    expect(occupiedSlots(records(false, true, true, true, true, true, true), 4, 'free')).toBe(3);
    // Nothing working (not a state a run reaches with 'launched-before'): still one taken.
    expect(occupiedSlots(records(true, true), 4, 'free')).toBe(1);
    expect(occupiedSlots({}, 4, 'free')).toBe(0);
  });
});

describe("heldSlot 'free-early': the rule in force", () => {
  // A 1,500-call budget, valset 30, proposals whose worst case is 36 calls.
  const view = (spentCalls: number, launched: number, inFlightNow: number): WidthBudgetView => ({ ledger: { maxMetricCalls: 1500, spentCalls, reservedCalls: 0 }, launched, inFlightNow, seedCalls: 30, worstCase: 36 });

  it('counts the proposals the calls left pay for: at the worst case until inFlight have finished, then at the mean a finished one spent', () => {
    // 7 launched, 4 in flight: 3 finished, fewer than K = 4: (1500 - 130) / 36.
    expect(proposalsLeft(view(130, 7, 4), 4)).toBeCloseTo(1370 / 36, 10);
    // 24 launched, 8 in flight: 16 finished, (330 - 30) / 16 = 18.75 calls each; 1170 / 18.75 = 62.4.
    expect(proposalsLeft(view(330, 24, 8), 8)).toBeCloseTo(62.4, 10);
    expect(proposalsLeft({ ...view(330, 24, 8), ledger: { maxMetricCalls: Infinity, spentCalls: 330, reservedCalls: 0 } }, 8)).toBe(Infinity);
  });

  it("frees places while the proposals left make FREE_EARLY_GENERATIONS generations at width 2K / 8, keeps them after; 'keep' and 'free' are what they say", () => {
    expect(FREE_EARLY_GENERATIONS).toBe(16);
    // K = 8: width 2, so 32 proposals left. 62.4 left: free; 20 calls a proposal with 600 calls left (30 left): keep.
    expect(heldSlotNow('free-early', 8, view(330, 24, 8))).toBe('free');
    expect(heldSlotNow('free-early', 8, view(900, 51, 8))).toBe('keep');
    // K = 4: width 1 (never narrower), so 16 left: 30 left frees.
    expect(heldSlotNow('free-early', 4, view(900, 51, 8))).toBe('free');
    expect(heldSlotNow('keep', 8, view(330, 24, 8))).toBe('keep');
    expect(heldSlotNow('free', 8, view(900, 51, 8))).toBe('free');
  });
});

/** The most proposals in flight at once in a demo run, and the result. */
async function mostInFlight(heldSlot: 'keep' | 'free' | 'free-early' | undefined, maxMetricCalls = 600): Promise<{ most: number; startsWhileHeld: number; result: OptimizeResult; started: number; startsBeyond: number[] }> {
  const clock = steppingClock(new SimulatedClock());
  const task = createDemoTask({ seed: 4, metricCallMs: 20, reflectionMs: 100, clock });
  const { seedCandidate, trainset, valset, adapter, reflectionLm } = task;
  const open = new Set<string>();
  let most = 0;
  let startsWhileHeld = 0;
  let started = 0;
  // The ordinal of each proposal that started with 4 or more in flight: in a held child's place.
  const startsBeyond: number[] = [];
  const onEvent = (e: RunEvent) => {
    if (e.type === 'proposal.started') {
      started++;
      if (open.size >= 4) startsWhileHeld++;
      if (open.size >= 4) startsBeyond.push(started);
      open.add(`${e.step}-${e.task}`);
      most = Math.max(most, open.size);
    }
    if (e.type === 'proposal.ended') open.delete(`${e.step}-${e.task}`);
  };
  const schedule: Schedule = { kind: 'async', inFlight: 4, rebaseWait: 'launched-before', ...(heldSlot ? { heldSlot } : {}) };
  const result = await runOnSimulatedClock(clock, optimize({ seedCandidate, trainset, valset, adapter, reflectionLm, schedule, workers: 16, maxMetricCalls, seed: 4, clock, onEvent }));
  return { most, startsWhileHeld, result, started, startsBeyond };
}

describe("heldSlot 'free' in a run", () => {
  it('starts proposals while children wait, beyond inFlight and never beyond twice it, within the budget', async () => {
    const free = await mostInFlight('free');
    expect(free.most).toBeGreaterThan(4);
    expect(free.most).toBeLessThanOrEqual(8);
    expect(free.startsWhileHeld).toBeGreaterThan(0);
    expect(free.result.metricCalls).toBeLessThanOrEqual(600);
    expect(free.result.stopReason).toBe('maxMetricCalls');
  });

  it("'keep' (the default) never has more than inFlight proposals in flight, and is the run without the field", async () => {
    const kept = await mostInFlight('keep');
    expect(kept.most).toBe(4);
    expect(kept.startsWhileHeld).toBe(0);
    expect((await mostInFlight(undefined)).result).toEqual(kept.result);
  });

  it("'free-early' is 'free' early in a large budget and 'keep' for its last proposals", async () => {
    const early = await mostInFlight('free-early', 1500);
    const free = await mostInFlight('free', 1500);
    expect(early.startsBeyond.length).toBeGreaterThan(10);
    // The same run as 'free' until the calls left fund fewer than 16 generations (K = 4: width 1)...
    expect(free.startsBeyond.slice(0, early.startsBeyond.length)).toEqual(early.startsBeyond);
    // ...then no place is given up: the run's last ten proposals or more start within inFlight, where 'free' still frees them.
    expect(early.started - (early.startsBeyond.at(-1) as number)).toBeGreaterThanOrEqual(10);
    expect(free.started - (free.startsBeyond.at(-1) as number)).toBeLessThan(10);
    expect(early.result.metricCalls).toBeLessThanOrEqual(1500);
  });

  it("'free-early' in a budget too small for wide search is the 'keep' run, where 'free' frees places", async () => {
    const early = await mostInFlight('free-early', 300);
    expect(early.startsBeyond).toEqual([]);
    expect(early.result).toEqual((await mostInFlight('keep', 300)).result);
    expect((await mostInFlight('free', 300)).startsBeyond.length).toBeGreaterThan(0);
  });

  it('refuses a value it does not know, naming the field', async () => {
    const task = createDemoTask({ seed: 1 });
    const schedule = { kind: 'async', inFlight: 4, heldSlot: 'lend' } as unknown as Schedule;
    await expect(optimize({ seedCandidate: task.seedCandidate, trainset: task.trainset, valset: task.valset, adapter: task.adapter, reflectionLm: task.reflectionLm, schedule, maxMetricCalls: 100 })).rejects.toThrow(ConfigError);
    await expect(optimize({ seedCandidate: task.seedCandidate, trainset: task.trainset, valset: task.valset, adapter: task.adapter, reflectionLm: task.reflectionLm, schedule, maxMetricCalls: 100 })).rejects.toThrow(/heldSlot/);
  });
});

/** One process's part of a run in a run directory, aborted at `abortAtMs` of simulated time. */
async function runIn(runDir: string, abortAtMs: number | undefined, schedule: Schedule): Promise<OptimizeResult> {
  const clock = steppingClock(new SimulatedClock());
  const task = createDemoTask({ seed: 1, metricCallMs: 20, reflectionMs: 80, clock });
  const abort = new AbortController();
  if (abortAtMs !== undefined) clock.setTimeout(() => abort.abort(new Error('killed')), abortAtMs);
  const { seedCandidate, trainset, valset, adapter, reflectionLm } = task;
  return runOnSimulatedClock(clock, optimize({ seedCandidate, trainset, valset, adapter, reflectionLm, runIdentity: { reflectionLm: 'demo' }, schedule, workers: 8, maxMetricCalls: 400, seed: 5, runDir, clock, signal: abort.signal }));
}

describe('resuming', () => {
  it('a run directory written before schedule.heldSlot and schedule.speculate existed resumes as it started (keep, none), and names them when told otherwise', async () => {
    const before: Schedule = { kind: 'async', inFlight: 4 };
    const reference = await runIn(join(scratch, 'reference'), undefined, before);
    const cut = join(scratch, 'cut');
    expect((await runIn(cut, Math.floor(reference.elapsedMs * 0.6), before)).stopReason).toBe('aborted');
    const configFile = join(cut, 'config.json');
    const record = JSON.parse(readFileSync(configFile, 'utf8')) as { settings: { schedule: Record<string, unknown> } };
    expect(record.settings.schedule.heldSlot).toBe('keep');
    expect(record.settings.schedule.speculate).toBe('none');
    delete record.settings.schedule.heldSlot;
    delete record.settings.schedule.speculate;
    writeFileSync(configFile, JSON.stringify(record));
    const [other, otherSpeculation, named] = [join(scratch, 'other'), join(scratch, 'other-speculation'), join(scratch, 'named')];
    cpSync(cut, other, { recursive: true });
    cpSync(cut, otherSpeculation, { recursive: true });
    cpSync(cut, named, { recursive: true });
    // Resumed without naming the setting: the same run as the cut resumed with 'keep' named.
    const resumed = await runIn(cut, undefined, before);
    expect(resumed.stopReason).toBe('maxMetricCalls');
    expect(resumed).toEqual(await runIn(named, undefined, { ...before, heldSlot: 'keep', speculate: 'none' }));
    await expect(runIn(other, undefined, { ...before, heldSlot: 'free' })).rejects.toThrow(/schedule: .*"heldSlot":"keep".* in the run directory, .*"heldSlot":"free".* now/);
    await expect(runIn(otherSpeculation, undefined, { ...before, speculate: 'rebase-gate' })).rejects.toThrow(/schedule: .*"speculate":"none".* in the run directory, .*"speculate":"rebase-gate".* now/);
  });

  it.each(['free', 'free-early'] as const)("a run with speculate 'rebase-gate' and heldSlot '%s' cut short resumes to its budget, every logged call in the result", async (heldSlot) => {
    const schedule: Schedule = { kind: 'async', inFlight: 4, speculate: 'rebase-gate', heldSlot };
    const reference = await runIn(join(scratch, `speculating-reference-${heldSlot}`), undefined, schedule);
    const cut = join(scratch, `speculating-${heldSlot}`);
    const configFile = join(cut, 'config.json');
    expect((await runIn(cut, Math.floor(reference.elapsedMs * 0.5), schedule)).stopReason).toBe('aborted');
    expect((JSON.parse(readFileSync(configFile, 'utf8')) as { settings: { schedule: Record<string, unknown> } }).settings.schedule.heldSlot).toBe(heldSlot);
    await expect(runIn(cut, undefined, { ...schedule, heldSlot: 'keep' })).rejects.toThrow(ConfigError);
    const resumed = await runIn(cut, undefined, schedule);
    expect(resumed.stopReason).toBe('maxMetricCalls');
    expect(resumed.metricCalls).toBeLessThanOrEqual(400);
    expect(resumed.metricCalls).toBe(readRunLog(join(cut, 'log.jsonl')).records.filter((r) => r.t === 'eval').length);
  });
});
