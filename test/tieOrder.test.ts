// The tie order of dominated removal as a config option: validated at the edge with its default,
// and reaching the parent draws of a step (a child that scores exactly like its parent).
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../src/config/runSettings.js';
import { addCandidate, emptyPool } from '../src/gepa/core/candidatePool.js';
import { Rng } from '../src/gepa/core/rng.js';
import { EpochShuffledSampler } from '../src/gepa/strategies/minibatchSampler.js';
import { planStep } from '../src/gepa/strategies/proposalSampling.js';
import type { OptimizeConfig } from '../src/config/optimizeConfig.js';
import type { TieOrder } from '../src/settingValues.js';

const config: OptimizeConfig<number> = {
  seedCandidate: { a: 'x' },
  trainset: [1, 2, 3],
  adapter: { evaluate: async () => ({ score: 0 }) },
  reflectionLm: async () => '```\ny\n```',
  maxMetricCalls: 100,
};

describe('tieOrder in the config', () => {
  it("defaults to the reference's exact order for batched steps and 'oldest-survives' for async, and takes any order", () => {
    expect(resolveSettings(config).tieOrder).toBe('reference');
    expect(resolveSettings({ ...config, schedule: { kind: 'batched', parents: 4 } }).tieOrder).toBe('reference');
    expect(resolveSettings({ ...config, schedule: { kind: 'async', inFlight: 8 }, tieOrder: 'reference' }).tieOrder).toBe('reference');
    expect(resolveSettings({ ...config, schedule: { kind: 'async', inFlight: 8 } }).tieOrder).toBe('oldest-survives');
    expect(resolveSettings({ ...config, schedule: { kind: 'async', inFlight: 8 }, tieOrder: 'newest-survives' }).tieOrder).toBe('newest-survives');
    expect(resolveSettings({ ...config, tieOrder: 'newest-survives' }).tieOrder).toBe('newest-survives');
    expect(resolveSettings({ ...config, tieOrder: 'oldest-survives' }).tieOrder).toBe('oldest-survives');
  });

  it('rejects another value, naming the field', () => {
    expect(() => resolveSettings({ ...config, tieOrder: 'newest' as TieOrder })).toThrow(/tieOrder/);
  });
});

describe('tieOrder in a step', () => {
  // Seed 0 and its child 1 score alike everywhere; 2 is alone on the last example.
  const rows = [
    [1, 0, 0],
    [1, 0, 0],
    [0, 1, 1],
  ];
  let pool = emptyPool();
  rows.forEach((subscores, i) => {
    pool = addCandidate(pool, { candidate: { a: `a${i}` }, parents: i === 0 ? [] : [0], subscores, metricCallsAtDiscovery: 0 }).pool;
  });
  const parentsDrawn = (tieOrder: TieOrder) => {
    const plan = planStep({
      pool,
      shape: { parents: 40, perParent: 1 },
      frontType: 'instance',
      tieOrder,
      parentSelection: 'pareto',
      componentSelection: 'all',
      componentNames: ['a'],
      rng: new Rng(3),
      sampler: new EpochShuffledSampler(3, 1),
    });
    return new Set(plan.tasks.map((t) => t.parent));
  };

  it('draws the child, not its equal parent, with newest-survives, and the parent with oldest-survives', () => {
    expect(parentsDrawn('newest-survives')).toEqual(new Set([1, 2]));
    expect(parentsDrawn('oldest-survives')).toEqual(new Set([0, 2]));
  });
});
