// Planning one step: P parents x N mutations, parent-major task order, one minibatch per task,
// the budget cap on tasks, round-robin pointers per task, and reproducibility for a seed.
import { describe, expect, it } from 'vitest';
import { addCandidate, emptyPool, poolFronts, withComponentPointers, type CandidatePool } from '../src/gepa/core/candidatePool.js';
import { EpochShuffledSampler } from '../src/gepa/strategies/minibatchSampler.js';
import { selectParent } from '../src/gepa/strategies/parentSelection.js';
import { planStep, stepShapes, type StepPlanInput, type StepShape } from '../src/gepa/strategies/proposalSampling.js';
import { Rng } from '../src/gepa/core/rng.js';

/** Three candidates, each the only best on one valset example: Pareto list [0, 1, 2]. */
function threeWayPool(): CandidatePool {
  let pool = emptyPool();
  const rows = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  rows.forEach((subscores, i) => {
    pool = addCandidate(pool, { candidate: { a: `a${i}`, b: `b${i}` }, parents: i === 0 ? [] : [0], subscores, metricCallsAtDiscovery: 0 }).pool;
  });
  return pool;
}

function input(overrides: Partial<StepPlanInput> & { shape: StepShape; seed?: number; trainSize?: number }): StepPlanInput {
  const { seed = 1, trainSize = 18, ...rest } = overrides;
  return {
    pool: threeWayPool(),
    frontType: 'instance',
    tieOrder: 'oldest-survives',
    parentSelection: 'pareto',
    componentSelection: 'round-robin',
    componentNames: ['a', 'b'],
    rng: new Rng(seed),
    sampler: new EpochShuffledSampler(trainSize, 3),
    ...rest,
  };
}

describe('stepShapes', () => {
  it('names the paper shapes', () => {
    expect(stepShapes.single()).toEqual({ parents: 1, perParent: 1 });
    expect(stepShapes.sameParent(4)).toEqual({ parents: 1, perParent: 4 });
    expect(stepShapes.independent(4)).toEqual({ parents: 4, perParent: 1 });
    expect(stepShapes.grid(2, 3)).toEqual({ parents: 2, perParent: 3 });
  });
});

describe('planStep', () => {
  it('makes P*N tasks, parent-major: tasks 0..N-1 share the first parent', () => {
    const plan = planStep(input({ shape: stepShapes.grid(2, 3) }));
    expect(plan.tasks.map((t) => t.task)).toEqual([0, 1, 2, 3, 4, 5]);
    const parents = plan.tasks.map((t) => t.parent);
    expect(new Set(parents.slice(0, 3)).size).toBe(1);
    expect(new Set(parents.slice(3, 6)).size).toBe(1);
  });

  it('draws the parents first, then each task its minibatch, all from the one RNG', () => {
    const plan = planStep(input({ shape: stepShapes.grid(2, 3), seed: 9 }));
    // Replay the documented draw order by hand.
    const pool = threeWayPool();
    const rng = new Rng(9);
    const sampler = new EpochShuffledSampler(18, 3);
    const view = { fronts: poolFronts(pool, 'instance'), meanScores: pool.valScores };
    const parents = [selectParent('pareto', view, rng), selectParent('pareto', view, rng)];
    const minibatches = Array.from({ length: 6 }, () => sampler.next(rng));
    expect(plan.tasks.map((t) => t.parent)).toEqual([0, 0, 0, 1, 1, 1].map((p) => parents[p]));
    expect(plan.tasks.map((t) => t.minibatch)).toEqual(minibatches);
  });

  it('gives every task its own minibatch: 6 tasks of 3 cover an 18-example trainset once', () => {
    const plan = planStep(input({ shape: stepShapes.grid(2, 3) }));
    const ids = plan.tasks.flatMap((t) => t.minibatch);
    expect(ids.slice().sort((x, y) => x - y)).toEqual(Array.from({ length: 18 }, (_, i) => i));
  });

  it('truncates to maxTasks and draws only the parents those tasks need', () => {
    const full = planStep(input({ shape: stepShapes.grid(2, 3), seed: 4 }));
    const capped = input({ shape: stepShapes.grid(2, 3), seed: 4, maxTasks: 3 });
    const plan = planStep(capped);
    expect(plan.tasks).toHaveLength(3);
    expect(plan.tasks.map((t) => t.parent)).toEqual(full.tasks.slice(0, 3).map((t) => t.parent));
    // One parent draw, then three minibatches: the RNG is exactly where that leaves it.
    const pool = threeWayPool();
    const rng = new Rng(4);
    const sampler = new EpochShuffledSampler(18, 3);
    selectParent('pareto', { fronts: poolFronts(pool, 'instance'), meanScores: pool.valScores }, rng);
    const minibatches = [sampler.next(rng), sampler.next(rng), sampler.next(rng)];
    expect(plan.tasks.map((t) => t.minibatch)).toEqual(minibatches);
    expect(capped.rng.getState()).toEqual(rng.getState());
  });

  it('with maxTasks 4 of a 2x3 shape, draws 2 parents: tasks 0-2 share one, task 3 has the second', () => {
    const full = planStep(input({ shape: stepShapes.grid(2, 3), seed: 4 }));
    const plan = planStep(input({ shape: stepShapes.grid(2, 3), seed: 4, maxTasks: 4 }));
    expect(plan.tasks.map((t) => t.parent)).toEqual(full.tasks.slice(0, 4).map((t) => t.parent));
  });

  it('with maxTasks 0 plans nothing and draws nothing', () => {
    const i = input({ shape: stepShapes.grid(2, 2), maxTasks: 0 });
    const before = i.rng.getState();
    const plan = planStep(i);
    expect(plan.tasks).toEqual([]);
    expect(i.rng.getState()).toEqual(before);
    expect(plan.componentPointers).toEqual([0, 0, 0]);
  });

  it('advances the round-robin pointer per task of the same parent', () => {
    // current-best with equal means picks candidate 0 for every draw.
    const pool = withComponentPointers(threeWayPool(), [1, 0, 1]);
    const plan = planStep(input({ pool, shape: stepShapes.sameParent(3), parentSelection: 'current-best' }));
    expect(plan.tasks.map((t) => [t.parent, t.components])).toEqual([
      [0, ['b']],
      [0, ['a']],
      [0, ['b']],
    ]);
    expect(plan.componentPointers).toEqual([0, 0, 1]);
    expect(pool.componentPointers).toEqual([1, 0, 1]); // the pool itself is not changed
  });

  it('advances each parent pointer separately in a multi-parent step', () => {
    const plan = planStep(input({ shape: stepShapes.independent(6), seed: 3, componentNames: ['a', 'b', 'c'] }));
    const seen = new Map<number, number>();
    for (const t of plan.tasks) {
      const k = seen.get(t.parent) ?? 0;
      expect(t.components).toEqual([['a', 'b', 'c'][k % 3]]);
      seen.set(t.parent, k + 1);
    }
    expect(seen.size).toBeGreaterThan(1); // the seed does draw several parents
    expect(plan.componentPointers).toEqual([0, 1, 2].map((c) => (seen.get(c) ?? 0) % 3));
  });

  it("'all' gives every task every component and leaves the pointers alone", () => {
    const pool = withComponentPointers(threeWayPool(), [1, 0, 1]);
    const plan = planStep(input({ pool, shape: stepShapes.grid(2, 2), componentSelection: 'all' }));
    for (const t of plan.tasks) expect(t.components).toEqual(['a', 'b']);
    expect(plan.componentPointers).toEqual([1, 0, 1]);
  });

  it('is deterministic for a seed', () => {
    const a = planStep(input({ shape: stepShapes.grid(3, 2), seed: 17 }));
    const b = planStep(input({ shape: stepShapes.grid(3, 2), seed: 17 }));
    expect(a).toEqual(b);
    const c = planStep(input({ shape: stepShapes.grid(3, 2), seed: 18 }));
    expect(c.tasks.map((t) => t.minibatch)).not.toEqual(a.tasks.map((t) => t.minibatch));
  });

  it('single: one task; sameParent: one parent for all; independent: a draw per task', () => {
    expect(planStep(input({ shape: stepShapes.single() })).tasks).toHaveLength(1);
    const same = planStep(input({ shape: stepShapes.sameParent(4), seed: 2 }));
    expect(same.tasks).toHaveLength(4);
    expect(new Set(same.tasks.map((t) => t.parent)).size).toBe(1);
    // Independent draws from the list [0, 1, 2]: over 12 tasks every candidate turns up (seed 2).
    const independent = planStep(input({ shape: stepShapes.independent(12), seed: 2, trainSize: 36 }));
    expect(independent.tasks).toHaveLength(12);
    expect(new Set(independent.tasks.map((t) => t.parent))).toEqual(new Set([0, 1, 2]));
  });

  it('continues the epoch across steps: the next step gets the next chunks', () => {
    const sampler = new EpochShuffledSampler(18, 3);
    const rng = new Rng(6);
    const first = planStep(input({ shape: stepShapes.grid(1, 3), rng, sampler }));
    const second = planStep(input({ shape: stepShapes.grid(1, 3), rng, sampler }));
    const ids = [...first.tasks, ...second.tasks].flatMap((t) => t.minibatch);
    expect(new Set(ids).size).toBe(18);
  });

  it("with stepMinibatches 'sliding', consecutive steps share all but one minibatch and the epoch moves one chunk a step", () => {
    const sampler = new EpochShuffledSampler(18, 3);
    const rng = new Rng(2);
    const first = planStep(input({ shape: stepShapes.grid(2, 2), stepMinibatches: 'sliding', sampler, rng }));
    const second = planStep(input({ shape: stepShapes.grid(2, 2), stepMinibatches: 'sliding', sampler, rng }));
    const batches = (plan: ReturnType<typeof planStep>) => plan.tasks.map((t) => t.minibatch);
    expect(new Set(batches(first).map(String)).size).toBe(4);
    expect(batches(second).slice(0, 3)).toEqual(batches(first).slice(1));
    expect(batches(second)[3]).not.toEqual(batches(first)[0]);
    expect(sampler.getState().position).toBe(6);
  });
});
