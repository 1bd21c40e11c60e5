// report.html as text: model-written candidate text cannot inject markup or script, and the
// page loads nothing from the network. (The rendered page is checked in report.test.ts.)
import { describe, expect, it } from 'vitest';
import { renderReport } from '../src/report/renderReport.js';
import { ConfigError } from '../src/config/configError.js';
import { checkRuntimeModel } from '../src/report/runtimeCheck.js';
import type { OptimizeResult } from '../src/types.js';

const hostile = 'Ignore this: </pre><script>alert("x")</script><img src="http://evil.example/x.png"> & done';

const result: OptimizeResult = {
  candidates: [{ system_prompt: 'Answer.' }, { system_prompt: `Answer. ${hostile}` }],
  parents: [[], [0]],
  valScores: [0.5, 1],
  valSubscores: [
    [1, 0],
    [1, 1],
  ],
  bestIndex: 1,
  bestCandidate: { system_prompt: `Answer. ${hostile}` },
  bestScore: 1,
  metricCalls: 7,
  reflectionCalls: 1,
  costUsd: 0.0123,
  discoveryMetricCalls: [2, 7],
  discoveryElapsedMs: [20, 70],
  stopReason: 'maxMetricCalls </script>',
  proposals: [{ step: 1, task: 0, kind: 'reflective', parents: [0], outcome: 'accepted', reason: 'accepted', candidateIndex: 1, staleness: 0, reflectionCostUsd: 0 }],
  elapsedMs: 80,
  workerUtilization: 0.5,
};

describe('renderReport', () => {
  const html = renderReport({
    title: 'run <b>1</b>',
    result,
    workers: 2,
    schedule: { kind: 'batched', parents: 1, perParent: 1 },
    minibatchSize: 1,
    budget: 10,
    slotIntervals: [
      { slot: 0, kind: 'seed', start: 100, end: 110 },
      { slot: 1, kind: 'seed', start: 100, end: 112 },
      { slot: 0, kind: 'parent', start: 120, end: 130 },
      { slot: 0, kind: 'reflection', start: 130, end: 150 },
      { slot: 0, kind: 'child', start: 150, end: 160 },
      { slot: 0, kind: 'valset', start: 160, end: 170 },
      { slot: 1, kind: 'valset', start: 160, end: 175 },
    ],
    runStartedAt: 100,
  });

  it('escapes every text it shows', () => {
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>1</b>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('maxMetricCalls &lt;/script&gt;');
    // Exactly the page's own two script elements.
    expect(html.match(/<script/g)).toHaveLength(2);
  });

  it('references nothing outside the file', () => {
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(/i);
  });

  it('shows the runtime model against the measured wall-clock', () => {
    expect(html).toContain('<th class="num">predicted</th><th class="num">measured</th>');
    expect(html).toContain('acceptance rate a = 1.000');
  });
});

describe('renderReport on a mistyped input', () => {
  const good = { title: 't', result, workers: 2, schedule: { kind: 'batched', parents: 1, perParent: 2 }, minibatchSize: 3, slotIntervals: [], runStartedAt: 0 } as const;
  it.each([
    ['a result without valScores', { ...good, result: { ...result, valScores: undefined } }, 'invalid report input: result.valScores: Invalid input: expected array, received undefined'],
    ['a string score', { ...good, result: { ...result, valScores: [0.5, '1'] } }, 'invalid report input: result.valScores.1: Invalid input: expected number, received string'],
    ['no result at all', { ...good, result: undefined }, 'invalid report input: result: Invalid input: expected object, received undefined'],
    ['arrays that disagree', { ...good, result: { ...result, discoveryElapsedMs: [20] } }, 'invalid report input: result.discoveryElapsedMs: 1 entries for 2 candidates'],
    ['a best index past the pool', { ...good, result: { ...result, bestIndex: 5 } }, 'invalid report input: result.bestIndex: 5 is not a candidate (2 candidates)'],
  ])('%s is a clear error naming the field, not a TypeError', (_name, input, message) => {
    expect(() => renderReport(input as never)).toThrow(message);
    expect(() => renderReport(input as never)).toThrow(ConfigError);
  });
  it('the well-typed input renders', () => {
    expect(renderReport(good as never)).toContain('<html');
  });
});

describe('renderReport of a run with failures', () => {
  it('shows the failed calls by kind and the error that stopped the run', () => {
    const failed = { ...result, stopReason: 'error', error: 'every call of the seed failed: HTTP 404 <model>', failures: { total: 5, byKind: { 'http 404': 4, timeout: 1 } } };
    const page = renderReport({ title: 't', result: failed, workers: 2, schedule: { kind: 'batched', parents: 1, perParent: 2 }, minibatchSize: 3, slotIntervals: [], runStartedAt: 0 });
    expect(page).toContain('<div class="label">failed calls</div><div class="value">5</div><div class="sub">http 404 x4, timeout x1</div>');
    expect(page).toContain('every call of the seed failed: HTTP 404 &lt;model&gt;');
  });
});

describe('the runtime check', () => {
  const intervals = [
    { slot: 0, kind: 'seed' as const, start: 0, end: 10 },
    { slot: 1, kind: 'seed' as const, start: 0, end: 10 },
    { slot: 0, kind: 'reflection' as const, start: 10, end: 30 },
    { slot: 0, kind: 'child' as const, start: 30, end: 40 },
  ];
  const check = (stopReason: string) =>
    checkRuntimeModel({ result: { ...result, stopReason }, intervals, workers: 2, schedule: { kind: 'batched', parents: 1, perParent: 1 }, minibatchSize: 1, budget: 100 });

  it('predicts for the budget when the budget stopped the run, and for the work done when it stopped early', () => {
    const full = check('maxMetricCalls');
    const early = check('perfectScore');
    expect(full.ok && full.params.budget).toBe(100);
    expect(early.ok && early.params.budget).toBe(7);
    expect(check('stopped').ok && (check('stopped') as { params: { budget: number } }).params.budget).toBe(7);
  });
});
