// Upper bounds on concurrency: `workers` and the async schedule's `inFlight` beyond 1024 are
// refused as a ConfigError naming the field, before any call is paid or any file is written.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, optimize } from '../src/index.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { runCli } from '../src/cli/program.js';
import { MAX_IN_FLIGHT, MAX_WORKERS } from '../src/config/runSettings.js';
import { KEYWORDS, toyExamples, toyTask } from './support/toyTask.js';
import { memoryIo } from './support/memoryIo.js';
import { SimulatedClock } from 'xstate';

const root = mkdtempSync(join(tmpdir(), 'gepa-bounds-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('concurrency bounds', () => {
  const run = (extra: Record<string, unknown>, runDir?: string) => {
    const clock = steppingClock(new SimulatedClock());
    const task = toyTask({ clock, evalMs: () => 10 });
    const config = { seedCandidate: { instructions: 'Answer.' }, trainset: toyExamples('t', KEYWORDS.slice(0, 4)), adapter: task.adapter, reflectionLm: task.reflectionLm, maxMetricCalls: 50, clock, ...(runDir ? { runDir } : {}), ...extra };
    return { task, result: runOnSimulatedClock(clock, optimize(config)) };
  };
  let n = 0;

  it.each([
    [{ workers: 1e8 }, `workers: Too big: expected number to be <=${MAX_WORKERS}`],
    [{ workers: Number.MAX_SAFE_INTEGER }, `workers: Too big: expected number to be <=${MAX_WORKERS}`],
    [{ schedule: { kind: 'async', inFlight: 1e8 } }, `schedule.inFlight: Too big: expected number to be <=${MAX_IN_FLIGHT}`],
  ])('%o is a ConfigError naming the field; nothing is paid or written', async (extra, message) => {
    const runDir = join(root, `refused-${n++}`);
    const { task, result } = run(extra, runDir);
    const error = await result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(message);
    expect(task.evaluateCalls).toBe(0);
    expect(existsSync(runDir)).toBe(false);
  });

  it('the bounds themselves are accepted', async () => {
    const { result } = run({ workers: MAX_WORKERS, schedule: { kind: 'async', inFlight: MAX_IN_FLIGHT } });
    // Validation passes; the toy run ends normally, by its budget or with a perfect candidate
    // (children decided in launch order, the async default, can reach it within the 50 calls).
    const { stopReason } = await result;
    expect(['maxMetricCalls', 'perfectScore']).toContain(stopReason);
  });

  it('the CLI refuses them with exit 2', async () => {
    const io = memoryIo();
    expect(await runCli(['demo', '--workers', '100000000', '--budget', '50'], io)).toBe(2);
    expect(io.err()).toContain('workers: Too big');
    const io2 = memoryIo();
    expect(await runCli(['demo', '--schedule', 'async:5000', '--budget', '50'], io2)).toBe(2);
    expect(io2.err()).toContain('inFlight: Too big');
  });
});
