// Every refusal of an enumerated value lists the values allowed, in one wording (src/config/allowedValues.ts):
// every list of src/settingValues.ts is refused through its config field, and so are the unions
// beside them (cacheEvaluation, proposalSelection, valsetPolicy, schedule.kind, executor.kind,
// reflectionStrategy).
// A list added to settingValues.ts without a row here fails the test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareRun } from '../src/run/prepareRun.js';
import * as settingValues from '../src/settingValues.js';
import { allowedValuesText, notOneOf } from '../src/config/allowedValues.js';
import { REFLECTION_STRATEGY_NAMES } from '../src/gepa/reflection/reflectionStrategies.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-allowed-values-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const base = { seedCandidate: { a: 'x' }, trainset: [1], adapter: { evaluate: async () => ({ score: 1 }) }, reflectionLm: async () => 'x', maxMetricCalls: 5 };
const asyncWith = (field: string) => (value: unknown) => ({ schedule: { kind: 'async', inFlight: 2, [field]: value } });
const top = (field: string) => (value: unknown) => ({ [field]: value });

/** Per list of settingValues.ts: the field it is refused through, and how a value is put there (null: not a setting). */
const LISTS: Record<string, { field: string; put: (value: unknown) => Record<string, unknown>; also?: unknown[]; accepted?: (value: string) => Record<string, unknown> } | null> = {
  REBASE_GATES: { field: 'schedule.rebaseGate', put: asyncWith('rebaseGate') },
  REBASE_WAITS: { field: 'schedule.rebaseWait', put: asyncWith('rebaseWait') },
  REBASE_POLICIES: { field: 'schedule.rebase', put: asyncWith('rebase') },
  HELD_SLOTS: { field: 'schedule.heldSlot', put: asyncWith('heldSlot') },
  SPECULATIONS: { field: 'schedule.speculate', put: asyncWith('speculate') },
  PARENT_WEIGHTINGS: { field: 'schedule.parentWeighting', put: asyncWith('parentWeighting') },
  FRONT_TYPES: { field: 'frontType', put: top('frontType') },
  TIE_ORDERS: { field: 'tieOrder', put: top('tieOrder') },
  STEP_MINIBATCHES: { field: 'stepMinibatches', put: top('stepMinibatches') },
  PARENT_SELECTIONS: { field: 'parentSelection', put: top('parentSelection') },
  COMPONENT_SELECTIONS: { field: 'componentSelection', put: top('componentSelection') },
  ACCEPTANCE_RULES: { field: 'acceptance', put: top('acceptance') },
  SLOT_POLICIES: { field: 'slotPolicy', put: top('slotPolicy') },
  PROPOSAL_SELECTIONS: { field: 'proposalSelection', put: top('proposalSelection'), also: [{ shape: '{ topK: n }' }] },
  SCHEDULE_KINDS: { field: 'schedule.kind', put: (kind) => ({ schedule: { kind } }), accepted: (kind) => ({ schedule: kind === 'async' ? { kind, inFlight: 2 } : { kind } }) },
  // The bullmq executor is checked (its connection) where its tests start Redis.
  EXECUTOR_KINDS: { field: 'executor.kind', put: (kind) => ({ executor: { kind } }), accepted: () => ({ executor: { kind: 'local' } }) },
  CACHE_EVALUATIONS: { field: 'cacheEvaluation', put: top('cacheEvaluation'), also: [false], accepted: (mode) => (mode === 'disk' ? { cacheEvaluation: mode, cacheDir: scratch, runIdentity: { adapter: 'allowed-values' } } : { cacheEvaluation: mode }) },
  // Chosen from the data by optimizeAnything, never given.
  SEARCH_MODES: null,
};

const refusal = (config: Record<string, unknown>): string => {
  try {
    prepareRun({ ...base, ...config } as never);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('accepted');
};

describe('a refused enumerated value is told the values allowed', () => {
  const lists = Object.entries(settingValues).filter(([, value]) => Array.isArray(value)) as Array<[string, readonly string[]]>;

  it('every list of settingValues.ts has its row', () => {
    expect(lists.map(([name]) => name).sort()).toEqual(Object.keys(LISTS).sort());
  });

  it.each(lists.filter(([name]) => LISTS[name] !== null))('%s', (name, values) => {
    const row = LISTS[name] as NonNullable<(typeof LISTS)[string]>;
    const allowed = [...(row.also?.includes(false) ? [false] : []), ...values, ...(row.also ?? []).filter((v) => v !== false)];
    expect(refusal(row.put('nonsense'))).toBe(`invalid optimize config: ${row.field}: must be one of ${allowedValuesText(allowed)} (got "nonsense")`);
    // Every value it lists is accepted.
    for (const value of values) expect(() => prepareRun({ ...base, ...(row.accepted ?? row.put)(value) } as never)).not.toThrow();
  });

  it('reflectionStrategy: a name, or a strategy of your own', () => {
    expect(refusal({ reflectionStrategy: 'combee' })).toBe(
      `invalid optimize config: reflectionStrategy: must be one of ${allowedValuesText([...REFLECTION_STRATEGY_NAMES, { shape: 'an object { name, ask, read }' }])} (got "combee")`,
    );
  });

  it('valsetPolicy, and a value of the wrong type', () => {
    expect(refusal({ valsetPolicy: 'ful' })).toBe(`invalid optimize config: valsetPolicy: must be one of "full" or { kind: 'race', chunk?, margin? } (got "ful")`);
    expect(refusal({ cacheEvaluation: true })).toBe('invalid optimize config: cacheEvaluation: must be one of false, "memory" or "disk" (got true)');
    expect(refusal({ frontType: 3 })).toBe('invalid optimize config: frontType: must be one of "instance", "objective", "hybrid" or "cartesian" (got 3)');
  });

  it('an object that matches a shape in part is told what is wrong in it', () => {
    expect(refusal({ proposalSelection: { topK: 0 } })).toMatch(/^invalid optimize config: proposalSelection\.topK: /);
  });

  it('the wording', () => {
    expect(notOneOf(['a'], 'b')).toBe('must be one of "a" (got "b")');
    expect(notOneOf(['a', 'b'], undefined)).toBe('must be one of "a" or "b" (got nothing)');
    expect(notOneOf([false, 'memory', 'disk'], { x: 1 })).toBe('must be one of false, "memory" or "disk" (got {"x":1})');
  });
});
