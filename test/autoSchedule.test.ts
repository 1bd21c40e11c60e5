// Schedule 'auto' (src/runtimeModel/autoSchedule.ts, machines/optimizer.auto.ts): the table of
// docs/schedules.md is the rule's, a run never passes its budget and says every choice (run
// event, result, log), it is a function of its seed in simulated time, and a run cut short and
// resumed takes the logged shapes again; where it evaluates gates ahead it reflects with its
// adaptive 'combined' unless the config chooses how to reflect.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { SimulatedClock } from 'xstate';
import { parseScheduleOption, scheduleOptionText } from '../src/cli/scheduleOption.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import { AUTO_COMBINED_NOTE, AUTO_GATED_IN_FLIGHT, AUTO_MAX_IN_FLIGHT, AUTO_MIN_CHANGE, autoDecision, autoSpeculation, budgetAllows } from '../src/runtimeModel/autoSchedule.js';
import { OTHER_VERSION_FIELD } from '../src/gepa/reflection/combinedFailures.js';
import type { LanguageModel } from '../src/gepa/core/languageModel.js';
import { autoViewOf, keepsShape, startAutoWatch } from '../src/runtimeModel/autoWatch.js';
import { optimize } from '../src/index.js';
import { readRunLog } from '../src/storage/runLog.js';
import { resolveSettings } from '../src/config/runSettings.js';
import { diffRunConfigs, runConfigRecord, scheduleResumedFrom } from '../src/storage/runConfigRecord.js';
import { test } from './support/toyRun.js';
import { toyRunConfig } from './support/toyRun.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-auto-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the rule', () => {
  test("docs/schedules.md's table is what the rule chooses", () => {
    const doc = readFileSync(new URL('../docs/schedules.md', import.meta.url), 'utf8');
    const table = doc.slice(doc.indexOf('<!-- auto-table -->'), doc.indexOf('<!-- /auto-table -->'));
    const rows = table.split('\n').filter((l) => /^\| \d/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const row of rows) {
      const cells = row.split('|').map((c) => c.trim()).slice(1, -1);
      const [workers, budget, valsetSize] = cells.slice(0, 3).map((c) => Number(c.replaceAll(',', ''))) as [number, number, number];
      const run = { workers, budget, valsetSize, minibatchSize: 3 };
      // The speculation is chosen once, before anything is observed; the shape again as the run observes.
      const speculate = autoSpeculation(autoViewOf(startAutoWatch(), run));
      const text = (inFlight: number) => `async ${inFlight}${speculate === 'rebase-gate' ? ' + gates' : ''}`;
      const seen = (reflectionMs: number) => text(autoDecision({ ...run, roundMs: 25, reflectionMs, ended: 0, skipped: 0, accepted: 0, proposalCalls: 0, speculate }).shape.inFlight);
      expect([text(autoDecision({ ...autoViewOf(startAutoWatch(), run), speculate }).shape.inFlight), seen(100), seen(1000)], row).toEqual(cells.slice(3));
    }
  });

  test('never wider than AUTO_MAX_IN_FLIGHT or the slots; narrower for a small budget; it says why', () => {
    for (const workers of [1, 2, 16, 128, 1024]) {
      const d = autoDecision({ workers, budget: 100_000, valsetSize: 30, minibatchSize: 3, roundMs: 20, reflectionMs: 5000, ended: 0, skipped: 0, accepted: 0, proposalCalls: 0 });
      expect(d.shape.inFlight).toBeLessThanOrEqual(Math.min(AUTO_MAX_IN_FLIGHT, Math.max(workers, 1)));
      expect(d.reason).toMatch(new RegExp(`^async ${d.shape.inFlight}: `));
    }
    expect(budgetAllows(10)).toBe(1);
    // 48 proposals at K 16 are 24 generations of width 2 (K / 8).
    expect(budgetAllows(48)).toBe(16);
  });

  test('gates evaluated ahead only where the slots would idle, and then at most AUTO_GATED_IN_FLIGHT in flight', () => {
    const at = (workers: number, budget = 1500) => autoSpeculation(autoViewOf(startAutoWatch(), { workers, budget, valsetSize: 30, minibatchSize: 3 }));
    expect([at(4), at(16), at(128), at(512), at(128, 300)]).toEqual(['none', 'none', 'rebase-gate', 'rebase-gate', 'none']);
    const view = { workers: 128, budget: 1500, valsetSize: 30, minibatchSize: 3, roundMs: 25, reflectionMs: 100, ended: 0, skipped: 0, accepted: 0, proposalCalls: 0 };
    expect(autoDecision({ ...view, speculate: 'rebase-gate' }).shape.inFlight).toBe(AUTO_GATED_IN_FLIGHT);
    expect(autoDecision({ ...view, speculate: 'rebase-gate' }).reason).toMatch(/^async 10; gates evaluated ahead: /);
    expect(autoDecision(view).shape.inFlight).toBe(AUTO_MAX_IN_FLIGHT);
  });

  test('after its first choice a run changes K by AUTO_MIN_CHANGE or more, never by one', () => {
    expect(AUTO_MIN_CHANGE).toBe(2);
    const at = (inFlight: number) => ({ inFlight, heldSlot: 'keep' as const });
    expect(keepsShape(at(9), at(8))).toBe(true);
    expect(keepsShape(at(7), at(8))).toBe(true);
    expect(keepsShape(at(10), at(8))).toBe(false);
    expect(keepsShape(at(12), at(8))).toBe(false);
    expect(keepsShape({ inFlight: 8, heldSlot: 'free' }, at(8))).toBe(false);
    // 16 slots: async 8 before anything is observed; reflections of 1 s widen it (to 12), not rounds that put the count at 8.0-8.2.
    const run = { workers: 16, budget: 1500, valsetSize: 30, minibatchSize: 3 };
    expect(autoDecision(autoViewOf(startAutoWatch(), run)).shape.inFlight).toBe(8);
    expect(keepsShape(autoDecision({ ...autoViewOf(startAutoWatch(), run), roundMs: 25, reflectionMs: 1000 }).shape, at(8))).toBe(false);
  });

  test("--schedule auto parses to { kind: 'auto' } and prints back", () => {
    expect(parseScheduleOption('auto')).toEqual({ kind: 'auto' });
    expect(scheduleOptionText({ kind: 'auto' })).toBe('auto');
  });
});

describe('a run', () => {
  for (const [workers, budget] of [[4, 120], [16, 300], [128, 400], [128, 61]] as const) {
    test(`${workers} slots, ${budget} calls: within the budget, every choice an event and a result line`, async ({ toyRun }) => {
      const events: RunEvent[] = [];
      const { result } = await toyRun({ schedule: { kind: 'auto' }, workers, maxMetricCalls: budget, valsetSize: 6, onEvent: (e) => void events.push(e) });
      expect(result.metricCalls).toBeLessThanOrEqual(budget);
      const decided = events.filter((e) => e.type === 'schedule.decided');
      expect(decided.length).toBeGreaterThanOrEqual(1);
      expect(result.scheduleDecisions?.map((d) => ({ type: 'schedule.decided', ...d.shape, reason: d.reason, metricCalls: d.atMetricCalls }))).toEqual(decided);
      for (const d of result.scheduleDecisions ?? []) expect(d.shape.inFlight).toBeLessThanOrEqual(Math.min(workers, AUTO_MAX_IN_FLIGHT));
    });
  }

  test('the same seed gives the same run', async ({ toyRun }) => {
    const [a, b] = [await toyRun({ schedule: { kind: 'auto' }, workers: 32, maxMetricCalls: 200 }), await toyRun({ schedule: { kind: 'auto' }, workers: 32, maxMetricCalls: 200 })];
    expect(b.result.scheduleDecisions).toEqual(a.result.scheduleDecisions);
    expect(b.result.proposals).toEqual(a.result.proposals);
  });

  test("where it evaluates gates ahead it reflects with its 'combined' (and says so), unless the config chooses; without gates never", async () => {
    const go = async (workers: number, extra: { reflectionStrategy?: 'built-in' } = {}) => {
      const clock = steppingClock(new SimulatedClock());
      const { config } = toyRunConfig({ clock, schedule: { kind: 'auto' }, workers, maxMetricCalls: 400, ...extra });
      const prompts: string[] = [];
      const lm = config.reflectionLm as LanguageModel;
      const reflectionLm: LanguageModel = (prompt, ctx) => {
        prompts.push(prompt);
        return lm(prompt, ctx);
      };
      const result = await runOnSimulatedClock(clock, optimize({ ...config, reflectionLm }));
      return { combined: prompts.filter((p) => p.includes(OTHER_VERSION_FIELD)).length, prompts: prompts.length, noted: result.scheduleDecisions?.every((d) => d.reason.endsWith(AUTO_COMBINED_NOTE)) };
    };
    const speculation = (workers: number) => autoSpeculation(autoViewOf(startAutoWatch(), { workers, budget: 400, valsetSize: 6, minibatchSize: 3 }));
    expect([speculation(128), speculation(4)]).toEqual(['rebase-gate', 'none']);
    const wide = await go(128);
    expect(wide.combined).toBeGreaterThan(0);
    expect(wide.combined).toBeLessThan(wide.prompts);
    expect(wide.noted).toBe(true);
    for (const other of [await go(128, { reflectionStrategy: 'built-in' }), await go(4)]) {
      expect(other.combined).toBe(0);
      expect(other.noted).toBe(false);
    }
  });

  test("its 'combined' is in the run directory's record: a directory written before it resumes without it, the same run", () => {
    const toy = toyRunConfig({ schedule: { kind: 'auto' }, workers: 128, maxMetricCalls: 400 });
    const config = { ...toy.config, runIdentity: { reflectionLm: 'toy-reflection' } };
    const settings = resolveSettings(config);
    expect(settings.schedule).toMatchObject({ kind: 'async', auto: true, speculate: 'rebase-gate', combinesFailures: true });
    expect(resolveSettings({ ...config, reflectionStrategy: 'built-in' }).schedule).not.toHaveProperty('combinesFailures');
    const written = runConfigRecord(config, settings);
    expect(written.settings.schedule).toMatchObject({ combinesFailures: true });
    expect(scheduleResumedFrom(written, config, settings)).toBe(settings);
    // As the version before it wrote the directory: the same schedule without the field.
    const { combinesFailures: _field, ...before } = written.settings.schedule as Record<string, unknown>;
    const older = { ...written, settings: { ...written.settings, schedule: before } };
    const resumed = scheduleResumedFrom(older, config, settings);
    expect(resumed.schedule).not.toHaveProperty('combinesFailures');
    expect(diffRunConfigs(older, runConfigRecord(config, resumed))).toEqual([]);
    expect(diffRunConfigs(older, runConfigRecord(config, settings)).map((d) => d.text)).toEqual([expect.stringMatching(/^schedule: .* in the run directory, .*"combinesFailures":true.* now$/)]);
  });

  test('cut short and resumed: the log holds each shape with its reason, the resumed run takes them again, within the budget', async () => {
    const runDir = join(scratch, 'resumed');
    const go = async (abortAtMs?: number) => {
      const clock = steppingClock(new SimulatedClock());
      const abort = new AbortController();
      if (abortAtMs !== undefined) clock.setTimeout(() => abort.abort(new Error('killed')), abortAtMs);
      const { config } = toyRunConfig({ clock, schedule: { kind: 'auto' }, workers: 64, maxMetricCalls: 300 });
      return runOnSimulatedClock(clock, optimize({ ...config, runDir, runIdentity: { reflectionLm: 'toy' }, signal: abort.signal }));
    };
    const first = await go(600);
    expect(first.stopReason).toBe('aborted');
    const logged = readRunLog(join(runDir, 'log.jsonl')).records.flatMap((r) => (r.t === 'decision' && r.kind === 'shape' ? [r] : []));
    expect(logged.length).toBeGreaterThanOrEqual(1);
    expect(logged.map((r) => r.reason)).toEqual(first.scheduleDecisions?.map((d) => d.reason));
    const resumed = await go();
    expect(resumed.metricCalls).toBeLessThanOrEqual(300);
    expect(resumed.scheduleDecisions?.slice(0, logged.length).map((d) => d.reason)).toEqual(logged.map((r) => r.reason));
  });
});
