// schedule.heldSlot: with 'free', a child held by rebaseWait gives its place among `inFlight` to
// a new proposal (its reflection overlaps the wait), within twice `inFlight` in all; with 'keep'
// (the default) nothing new starts while it waits. A run directory written before the setting
// existed resumes as it started, and so does one cut short with the new settings on.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import type { Proposal } from '../src/gepa/core/proposal.js';
import { HELD_SLOT_CEILING, occupiedSlots } from '../src/gepa/search/heldSlots.js';
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

/** The most proposals in flight at once in a demo run, and the result. */
async function mostInFlight(heldSlot: 'keep' | 'free' | undefined): Promise<{ most: number; startsWhileHeld: number; result: OptimizeResult }> {
  const clock = steppingClock(new SimulatedClock());
  const task = createDemoTask({ seed: 4, metricCallMs: 20, reflectionMs: 100, clock });
  const { seedCandidate, trainset, valset, adapter, reflectionLm } = task;
  const open = new Set<string>();
  let most = 0;
  let startsWhileHeld = 0;
  const onEvent = (e: RunEvent) => {
    if (e.type === 'proposal.started') {
      if (open.size >= 4) startsWhileHeld++;
      open.add(`${e.step}-${e.task}`);
      most = Math.max(most, open.size);
    }
    if (e.type === 'proposal.ended') open.delete(`${e.step}-${e.task}`);
  };
  const schedule: Schedule = { kind: 'async', inFlight: 4, rebaseWait: 'launched-before', ...(heldSlot ? { heldSlot } : {}) };
  const result = await runOnSimulatedClock(clock, optimize({ seedCandidate, trainset, valset, adapter, reflectionLm, schedule, workers: 16, maxMetricCalls: 600, seed: 4, clock, onEvent }));
  return { most, startsWhileHeld, result };
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

  it("a run with speculate 'rebase-gate' and heldSlot 'free' cut short resumes to its budget, every logged call in the result", async () => {
    const schedule: Schedule = { kind: 'async', inFlight: 4, speculate: 'rebase-gate', heldSlot: 'free' };
    const reference = await runIn(join(scratch, 'speculating-reference'), undefined, schedule);
    const cut = join(scratch, 'speculating');
    expect((await runIn(cut, Math.floor(reference.elapsedMs * 0.5), schedule)).stopReason).toBe('aborted');
    const resumed = await runIn(cut, undefined, schedule);
    expect(resumed.stopReason).toBe('maxMetricCalls');
    expect(resumed.metricCalls).toBeLessThanOrEqual(400);
    expect(resumed.metricCalls).toBe(readRunLog(join(cut, 'log.jsonl')).records.filter((r) => r.t === 'eval').length);
  });
});
