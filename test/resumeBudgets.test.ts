// Raising a finished run's budget on resume (maxMetricCalls, maxCostUsd): the run goes on from
// where it stopped, replaying what it paid for, and in the batched schedule ends exactly where an
// uninterrupted run with the larger budget ends. The raise is logged; a lower budget is refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { ConfigError, type OptimizeResult } from '../src/index.js';
import { runCli } from '../src/cli/program.js';
import { RunDirectoryError } from '../src/storage/runDirectoryError.js';
import { loggedBudgets, resumeBudgets } from '../src/storage/resumeBudgets.js';
import { memoryIo } from './support/memoryIo.js';
import { test } from './support/toyRun.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-budgets-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(scratch, `run-${++dirs}`);
const named = { runIdentity: { reflectionLm: 'toy' } };
const logRecords = (runDir: string) =>
  readFileSync(join(runDir, 'log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { t: string });

describe('a finished run resumed with a larger maxMetricCalls', () => {
  test('batched: ends exactly as an uninterrupted run with the larger budget, paying only the new calls', async ({ toyRun }) => {
    const runDir = freshDir();
    // spendLastCalls off: on, the first run spends its last calls on smaller proposals an uninterrupted run never starts.
    const off = { ...named, spendLastCalls: false };
    const first = await toyRun({ ...off, runDir, maxMetricCalls: 100, skipPerfectScore: false });
    expect(first.result.stopReason).toBe('maxMetricCalls');
    const extended = await toyRun({ ...off, runDir, maxMetricCalls: 200, skipPerfectScore: false });
    const uninterrupted = await toyRun({ ...off, maxMetricCalls: 200, skipPerfectScore: false });
    expect(extended.result.metricCalls).toBeGreaterThan(100);
    expect(extended.result.metricCalls).toBeLessThanOrEqual(200);
    for (const field of ['candidates', 'parents', 'valScores', 'metricCalls', 'reflectionCalls', 'stopReason'] as const) {
      expect(extended.result[field], field).toEqual(uninterrupted.result[field]);
    }
    // Only what the first run had not paid for was asked of the adapter.
    expect(extended.task.evaluateCalls).toBe(extended.result.metricCalls - first.result.metricCalls);
    expect(logRecords(runDir).filter((r) => r.t === 'budget')).toEqual([{ t: 'budget', maxMetricCalls: 200, maxCostUsd: null }]);
  });

  test('batched 2x2: within the larger budget, the logged calls paid once (the demo case that leaves the logged path is in runDirPreflight.test.ts)', async ({ toyRun }) => {
    const schedule = { kind: 'batched' as const, parents: 2, perParent: 2 };
    for (const [small, large] of [[100, 200], [90, 130], [120, 240]] as const) {
      const runDir = freshDir();
      const first = await toyRun({ ...named, runDir, schedule, maxMetricCalls: small, skipPerfectScore: false });
      const extended = await toyRun({ ...named, runDir, schedule, maxMetricCalls: large, skipPerfectScore: false });
      expect(extended.result.metricCalls, `${small} -> ${large}`).toBeLessThanOrEqual(large);
      expect(extended.result.metricCalls).toBeGreaterThan(first.result.metricCalls);
      // Logged calls count once, whether replayed or left behind: only the difference was asked of the adapter.
      expect(extended.task.evaluateCalls).toBe(extended.result.metricCalls - first.result.metricCalls);
    }
  });

  test('async: stays within the larger budget and replays the first run\'s work', async ({ toyRun }) => {
    const runDir = freshDir();
    const schedule = { kind: 'async' as const, inFlight: 3 };
    const first = await toyRun({ ...named, runDir, schedule, maxMetricCalls: 90, skipPerfectScore: false });
    const extended = await toyRun({ ...named, runDir, schedule, maxMetricCalls: 180, skipPerfectScore: false });
    expect(extended.result.metricCalls).toBeGreaterThan(90);
    expect(extended.result.metricCalls).toBeLessThanOrEqual(180);
    expect(extended.result.candidates.slice(0, first.result.candidates.length)).toEqual(first.result.candidates);
    expect(extended.task.evaluateCalls).toBe(extended.result.metricCalls - first.result.metricCalls);
  });

  test("async: the resumed run first retakes the logged path as it was taken (under the budget of the time), so log.jsonl's candidate records stay the result's, every logged call is replayed, and the progress counts only calls made", async ({ toyRun }) => {
    const cases = [
      [2, 150],
      [3, 200],
      [4, 250],
      [8, 200],
    ] as const;
    for (const [inFlight, small] of cases) {
      const label = `async ${inFlight}, ${small} -> 300`;
      const runDir = freshDir();
      const schedule = { kind: 'async' as const, inFlight };
      const first = await toyRun({ ...named, runDir, schedule, maxMetricCalls: small, skipPerfectScore: false });
      let shown = 0;
      const extended = await toyRun({
        ...named,
        runDir,
        schedule,
        maxMetricCalls: 300,
        skipPerfectScore: false,
        onEvent: (event) => {
          if (event.type === 'budget.updated') shown = event.metricCalls;
        },
      });
      const { candidates, parents, valScores, metricCalls } = extended.result;
      // The first run's pool comes back whole, in its order, before anything new joins.
      expect(candidates.slice(0, first.result.candidates.length), label).toEqual(first.result.candidates);
      const records = logRecords(runDir).filter((r): r is { t: 'candidate'; index: number; parents: number[]; valScore: number } => r.t === 'candidate');
      expect(records.map((r) => r.index), label).toEqual(candidates.slice(1).map((_, i) => i + 1));
      expect(records.map((r) => [r.parents, r.valScore]), label).toEqual(parents.slice(1).map((p, i) => [p, valScores[i + 1]]));
      // Every call the first run paid was replayed: the result holds no call this process did not make or replay,
      // so the last progress count is the result's.
      expect(shown, label).toBe(metricCalls);
      expect(extended.task.evaluateCalls, label).toBe(metricCalls - first.result.metricCalls);
      expect(metricCalls, label).toBeLessThanOrEqual(300);
      expect(metricCalls, label).toBeGreaterThan(first.result.metricCalls);
    }
  });

  test("the issue's case, the demo with async 8 (rebasing children), 250 -> 300: the rebases on the path get the room they got, so the run finishes with the log's pool", async () => {
    const runDir = freshDir();
    const demo = (budget: number, ...more: string[]) => ['demo', '--json', '--run-dir', runDir, '--schedule', 'async:8', '--budget', String(budget), ...more];
    const first = memoryIo();
    expect(await runCli(demo(250), first)).toBe(0);
    const resumed = memoryIo();
    expect(await runCli(demo(300, '--resume'), resumed)).toBe(0);
    const before = JSON.parse(first.out().trim().split('\n').at(-1)!) as OptimizeResult;
    const after = JSON.parse(resumed.out().trim().split('\n').at(-1)!) as OptimizeResult;
    expect(after.candidates.slice(0, before.candidates.length)).toEqual(before.candidates);
    const records = logRecords(runDir).filter((r): r is { t: 'candidate'; index: number; parents: number[]; valScore: number } => r.t === 'candidate');
    expect(records.map((r) => [r.index, r.parents, r.valScore])).toEqual(after.parents.slice(1).map((p, i) => [i + 1, p, after.valScores[i + 1]]));
    // No jump at the end: the last status line counts what the summary counts.
    const status = resumed.err().split('\n').filter((line) => /^\[\s*\d+%\] \d+\/300 calls/.test(line));
    expect(status.at(-1)).toContain(`${after.metricCalls}/300 calls`);
  });

  test('a further resume with the original budget keeps the raise: the same result, nothing paid', async ({ toyRun }) => {
    const runDir = freshDir();
    await toyRun({ ...named, runDir, maxMetricCalls: 100, skipPerfectScore: false });
    const extended = await toyRun({ ...named, runDir, maxMetricCalls: 200, skipPerfectScore: false });
    const again = await toyRun({ ...named, runDir, maxMetricCalls: 100, skipPerfectScore: false });
    expect(again.result).toEqual(extended.result);
    expect(again.task.evaluateCalls).toBe(0);
  });

  test('a lower budget than the run was last given is refused before anything is written', async ({ toyRun }) => {
    const runDir = freshDir();
    await toyRun({ ...named, runDir, maxMetricCalls: 100, skipPerfectScore: false });
    await toyRun({ ...named, runDir, maxMetricCalls: 200, skipPerfectScore: false });
    const before = readFileSync(join(runDir, 'log.jsonl'), 'utf8');
    const error = await toyRun({ ...named, runDir, maxMetricCalls: 150, skipPerfectScore: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('maxMetricCalls: 150 calls now, but the run was given 200 calls');
    expect(readFileSync(join(runDir, 'log.jsonl'), 'utf8')).toBe(before);
  });
});

describe('resumeBudgets', () => {
  test('the original value means "as last given"; more raises; less is refused; no limit is the most', () => {
    const original = { maxMetricCalls: 100, maxCostUsd: 1 };
    expect(resumeBudgets(original, original, original)).toEqual({ budgets: original, previous: original, original });
    const raisedCost = resumeBudgets(original, original, { maxMetricCalls: 100, maxCostUsd: 2 });
    expect(raisedCost.raised).toEqual({ t: 'budget', maxMetricCalls: 100, maxCostUsd: 2 });
    const previous = loggedBudgets(original, [{ t: 'budget', maxMetricCalls: 300, maxCostUsd: null }]);
    expect(previous).toEqual({ maxMetricCalls: 300 });
    expect(resumeBudgets(original, previous, { maxMetricCalls: 100 }).budgets).toEqual({ maxMetricCalls: 300 });
    expect(() => resumeBudgets(original, previous, { maxMetricCalls: 100, maxCostUsd: 5 })).toThrow('maxCostUsd: $5 now, but the run was given no limit');
    expect(() => resumeBudgets(original, original, { maxMetricCalls: 99, maxCostUsd: 1 })).toThrow('maxMetricCalls: 99 calls now, but the run was given 100 calls');
  });
});

describe('optimize() with a run directory that cannot be used', () => {
  test.for([
    ['under a regular file', join(scratch, 'file', 'run'), 'cannot be created'],
    ['under /proc', '/proc/gepa-actors-library/run', 'proc pseudo file system'],
  ] as const)('%s: a RunDirectoryError naming runDir before any call', async ([, runDir, message], { toyRun }) => {
    writeFileSync(join(scratch, 'file'), 'not a directory');
    const error: unknown = await toyRun({ ...named, runDir, maxMetricCalls: 40 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunDirectoryError);
    expect((error as Error).message).toContain(`runDir: ${runDir}`);
    expect((error as Error).message).toContain(message);
  });
});
