// Sliding minibatches became the batched default (issue 32), and the reference's exact tie order.
// A run directory started under an old default ('fresh', recorded in config.json or absent from a
// record older than the setting; 'newest-survives') resumes with what it started with when the
// setting is left unset, and ends with the result of an uninterrupted run under that rule; set
// explicitly to another value it is refused, naming the field and both values.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveSettings } from '../src/config/runSettings.js';
import { optimize } from '../src/index.js';
import { essence } from './support/demoRun.js';
import { forgetSetting, recordOf, resumableDemoConfig } from './support/resumableDemo.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-step-minibatches-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(scratch, `run-${++dirs}`);

const config = resumableDemoConfig;

describe('stepMinibatches default', () => {
  it("is 'sliding' for batched steps and stays 'fresh' for async (a step of one task: the same minibatch either way)", () => {
    const base = config(undefined);
    expect(resolveSettings(base).stepMinibatches).toBe('sliding');
    expect(resolveSettings({ ...base, schedule: { kind: 'async', inFlight: 4 } }).stepMinibatches).toBe('fresh');
    expect(resolveSettings({ ...base, stepMinibatches: 'fresh' }).stepMinibatches).toBe('fresh');
  });

  it('a new run records it, and the rule changes the run', async () => {
    const dir = freshDir();
    const sliding = await optimize(config(dir));
    expect(recordOf(dir).settings.stepMinibatches).toBe('sliding');
    expect(essence(sliding)).toEqual(essence(await optimize(config(undefined, { stepMinibatches: 'sliding' }))));
    expect(essence(sliding)).not.toEqual(essence(await optimize(config(undefined, { stepMinibatches: 'fresh' }))));
  });

  for (const written of ['recorded', 'absent'] as const) {
    it(`a run started with the old default (${written} in config.json) resumes with it when the setting is left unset`, async () => {
      const uninterrupted = await optimize(config(undefined, { stepMinibatches: 'fresh' }));
      const dir = freshDir();
      const stopped = await optimize(config(dir, { stepMinibatches: 'fresh' }, 120));
      expect(stopped.stopReason).toBe('stopped');
      expect(stopped.metricCalls).toBeLessThan(uninterrupted.metricCalls);
      if (written === 'absent') forgetSetting(dir, 'stepMinibatches');
      await expect(optimize(config(dir, { stepMinibatches: 'sliding' }))).rejects.toThrow(/stepMinibatches: "fresh" in the run directory, "sliding" now/);
      const resumed = await optimize(config(dir));
      expect(essence(resumed)).toEqual(essence(uninterrupted));
    });
  }

  it("the tie order's earlier batched default ('newest-survives') resumes the same way", async () => {
    const old = { stepMinibatches: 'fresh', tieOrder: 'newest-survives' } as const;
    const uninterrupted = await optimize(config(undefined, old));
    const dir = freshDir();
    expect((await optimize(config(dir, old, 150))).stopReason).toBe('stopped');
    await expect(optimize(config(dir, { tieOrder: 'reference' }))).rejects.toThrow(/tieOrder: "newest-survives" in the run directory, "reference" now/);
    expect(essence(await optimize(config(dir)))).toEqual(essence(uninterrupted));
  });
});
