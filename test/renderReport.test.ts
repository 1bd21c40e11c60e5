// report.html as text: model-written candidate text cannot inject markup or script, and the
// page loads nothing from the network. (The rendered page is checked in report.test.ts.)
import { describe, expect, it } from 'vitest';
import { renderReport } from '../src/report/renderReport.js';
import { ConfigError } from '../src/errors/configError.js';
import { checkRuntimeModel, measuredRebasing } from '../src/report/runtimeCheck.js';
import type { OptimizeResult, ProposalRecord } from '../src/gepa/core/optimizeResult.js';
import type { ModelUsage } from '../src/report/modelUsage.js';
import { proposalStage, renderProposalTable } from '../src/report/proposalTable.js';
import { costText, renderUsageTable, totalCostText } from '../src/report/usageTable.js';
import { signedPercent } from '../src/report/runWording.js';

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

  it('shows the runtime model against the measured wall-clock, its inputs in words rather than symbols', () => {
    expect(html).toContain('<th class="num">predicted</th><th class="num">measured</th>');
    expect(html).toContain('100% of the judged proposals accepted');
    expect(html).toContain('on 2 worker slots, a valset of 2 examples, minibatches of 1 example, a budget of');
    for (const symbol of ['T_e', 'T_r', 'V =', 'b =']) expect(html).not.toContain(symbol);
  });

  it('explains the Pareto grid\'s colours and marks', () => {
    expect(html).toContain("cell colour: the candidate's score on that example, 0");
    expect(html).toContain('dot: (one of) the best scores on that example');
    expect(html).toContain('"best on N": examples on which the candidate is (one of) the best');
  });
});

describe('signedPercent (the runtime model\'s error in report.html)', () => {
  it('always carries a sign, also when the error rounds to zero from below', () => {
    expect([0.071, -0.03, 0, 0.004, -0.004, -0.0049, 1.5].map(signedPercent)).toEqual(['+7%', '-3%', '+0%', '+0%', '+0%', '+0%', '+150%']);
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
  const check = (stopReason: string, metricCalls = 7) =>
    checkRuntimeModel({ result: { ...result, stopReason, metricCalls }, intervals, workers: 2, schedule: { kind: 'batched', parents: 1, perParent: 1 }, minibatchSize: 1, budget: 100 });
  const predictedBudget = (c: ReturnType<typeof check>) => (c.ok ? c.params.budget : c.reason);

  it('predicts for the budget when the budget stopped the run, and for the work done when it stopped early', () => {
    // 97 of 100 calls: the 3 left pay for no proposal (2 minibatch calls + a valset of 2 = 4).
    expect(predictedBudget(check('maxMetricCalls', 97))).toBe(100);
    expect(predictedBudget(check('perfectScore'))).toBe(7);
    expect(predictedBudget(check('stopped'))).toBe(7);
  });

  it("predicts for the work done when a stopper named 'maxMetricCalls' stopped the run below its budget", () => {
    // stoppers.maxMetricCalls(7) with maxMetricCalls 100: the budget could have paid for more.
    expect(predictedBudget(check('maxMetricCalls', 7))).toBe(7);
    expect(predictedBudget(check('maxMetricCalls', 96))).toBe(96);
  });

  it('tells a stoppers.maxMetricCalls stop from the budget running out by the stopper the result names, even a call short of the budget', () => {
    const stopped = (metricCalls: number, stoppedBy?: string) =>
      checkRuntimeModel({ result: { ...result, stopReason: 'maxMetricCalls', metricCalls, ...(stoppedBy ? { stoppedBy } : {}) }, intervals, workers: 2, schedule: { kind: 'batched', parents: 1, perParent: 1 }, minibatchSize: 1, budget: 100 });
    // 99 of 100 calls: as many calls left as the budget's own refusal would leave.
    expect(predictedBudget(stopped(99))).toBe(100);
    const byStopper = stopped(99, 'maxMetricCalls(99)');
    expect(predictedBudget(byStopper)).toBe(99);
    expect(byStopper.ok && byStopper.workNote).toBe(
      'the calls the run made, since it stopped (maxMetricCalls, by the stopper maxMetricCalls(99)) before its budget of 100; a prediction for the full budget would describe work it never did',
    );
  });
});

describe('the candidate panel', () => {
  const page = renderReport({ title: 't', result, workers: 2, schedule: { kind: 'batched', parents: 1, perParent: 1 }, minibatchSize: 1, slotIntervals: [], runStartedAt: 0 });
  it('holds every candidate, escaped, with only the best shown until a lineage node is chosen', () => {
    expect(page.match(/<article class="candidate-detail"/g)).toHaveLength(2);
    expect(page).toContain('<article class="candidate-detail" data-index="0" hidden>');
    expect(page).toContain('<article class="candidate-detail" data-index="1">');
    // Candidate #1's diff from its parent #0: the hostile text inserted, as text.
    expect(page).toContain('<pre class="diff">Answer.<ins> Ignore this: &lt;/pre&gt;&lt;script&gt;');
    expect(page).toMatch(/<g class="lineage-node[^"]*" data-index="1" tabindex="0" role="button"/);
  });
});

describe('a string artifact (optimizeAnything with a string seed)', () => {
  const strings = { ...result, candidates: ['workers = 4\ncache_mb = 64', 'workers = 6\ncache_mb = 64 </pre>'], bestCandidate: 'workers = 6\ncache_mb = 64 </pre>' };
  const page = renderReport({ title: 't', result: strings, workers: 2, schedule: { kind: 'batched', parents: 1, perParent: 1 }, minibatchSize: 1, slotIntervals: [], runStartedAt: 0 });
  const best = page.slice(page.indexOf('<section id="best-candidate">'), page.indexOf('<section id="candidate">'));
  it('shows the best artifact and its word diff from the seed, escaped', () => {
    expect(best).toContain('the best artifact, candidate #1');
    expect(best).toContain('<pre class="best-text">workers = 6\ncache_mb = 64 &lt;/pre&gt;</pre>');
    expect(best).toContain('<pre class="diff">workers = <del>4</del><ins>6</ins>\ncache_mb = 64<ins> &lt;/pre&gt;</ins></pre>');
  });
  it('holds each candidate\'s text in the candidate panel', () => {
    expect(page.match(/<article class="candidate-detail"/g)).toHaveLength(2);
    expect(page).toContain('<pre class="candidate-text">workers = 4\ncache_mb = 64</pre>');
  });
});

describe('the proposal table', () => {
  it.each([
    [{ outcome: 'accepted', reason: 'accepted' }, 'accepted'],
    [{ outcome: 'rejected', reason: 'failed acceptance: child minibatch sum 1 vs parent 2' }, 'rejected at minibatch'],
    [{ outcome: 'rejected', reason: 'the valset evaluation did not complete' }, 'rejected on valset'],
    [{ outcome: 'rejected', reason: 'child is already in the pool as candidate 3' }, 'duplicate'],
    [{ outcome: 'rejected', reason: 'duplicate of the child of task 0' }, 'duplicate'],
    [{ outcome: 'rejected', reason: 'not selected: margin 1 is not among the best' }, 'not selected'],
    [{ outcome: 'skipped', reason: 'parent is perfect on its minibatch' }, 'skipped'],
    [{ outcome: 'skipped', reason: 'every call of the parent minibatch failed' }, 'failed'],
    [{ outcome: 'rejected', reason: 'stopped before it finished (maxMetricCalls)' }, 'stopped'],
  ] as const)('%o is %s', (record, stage) => {
    expect(proposalStage(record)).toBe(stage);
  });

  it('shows every proposal with its parent, child, stage, minibatch sums and escaped reason', () => {
    const html = renderProposalTable([
      { step: 1, task: 0, kind: 'reflective', parents: [0], outcome: 'accepted', reason: 'accepted', candidateIndex: 1, parentMinibatchSum: 1, childMinibatchSum: 2, staleness: 0, reflectionCostUsd: 0 },
      { step: 2, task: 1, kind: 'reflective', parents: [1], outcome: 'skipped', reason: 'reflection failed: <b>HTTP 500</b>', staleness: 0, reflectionCostUsd: 0, rebasedFrom: 0 },
    ]);
    expect(html).toContain('2 proposals: 1 accepted, 1 failed.');
    expect(html).toContain('<td class="num">1.0</td><td>reflective</td><td>#0</td><td>#1</td><td class="stage">accepted</td><td class="num">2 vs 1</td>');
    expect(html).toContain('<td>#1 <span class="muted">(rebased from #0)</span></td><td></td><td class="stage">failed</td>');
    expect(html).toContain('reflection failed: &lt;b&gt;HTTP 500&lt;/b&gt;');
  });

  it('lists proposals in numeric order, whatever order they ended in (async)', () => {
    const ended = [3, 1, 10, 2].map((step): ProposalRecord => ({ step, task: 0, kind: 'reflective', parents: [0], outcome: 'rejected', reason: 'failed acceptance', staleness: 0, reflectionCostUsd: 0 }));
    const html = renderProposalTable(ended, true);
    expect([...html.matchAll(/<tr class="proposal [^"]*" data-stage="[^"]*"><td class="num">(\d+)<\/td>/g)].map((m) => m[1])).toEqual(['1', '2', '3', '10']);
  });

  it('names an async run\'s proposals by their number alone', () => {
    const record: ProposalRecord = { step: 4, task: 0, kind: 'reflective', parents: [0], outcome: 'rejected', reason: 'failed acceptance', staleness: 2, reflectionCostUsd: 0 };
    const html = renderProposalTable([record], true);
    expect(html).toContain('<th class="num">proposal</th>');
    expect(html).toContain('<td class="num">4</td><td>reflective</td>');
    expect(renderProposalTable([record])).toContain('<td class="num">4.0</td>');
  });

  it('names the proposal whose parent evaluation a sibling reflected on (async perParent)', () => {
    const record: ProposalRecord = { step: 5, task: 0, kind: 'reflective', parents: [2], outcome: 'rejected', reason: 'failed acceptance', staleness: 0, reflectionCostUsd: 0, siblingOf: 4 };
    expect(renderProposalTable([record], true)).toContain('<td>#2 <span class="muted">(parent evaluation of 4)</span></td>');
  });
});

describe('rebasing, as the runtime model takes it', () => {
  const record = (p: Partial<ProposalRecord>): ProposalRecord => ({ step: 1, task: 0, kind: 'reflective', parents: [0], outcome: 'rejected', reason: 'failed acceptance', staleness: 0, reflectionCostUsd: 0, ...p });
  it('is the share of reflected proposals rebased, and the mean examples of their second verdict', () => {
    const proposals = [
      record({ rebasedFrom: 0, rebaseGateExamples: 1 }),
      record({ rebasedFrom: 0, rebaseGateExamples: 2 }),
      record({ rebasedFrom: 0 }),
      record({}),
      record({ outcome: 'skipped', reason: 'parent is perfect on its minibatch' }),
    ];
    // A record without the field (an older run) counts as the whole minibatch.
    expect(measuredRebasing(proposals, 3)).toEqual({ rebaseRate: 0.75, rebaseGateExamples: 2 });
    expect(measuredRebasing([record({})], 3)).toEqual({ rebaseRate: 0 });
  });
});

describe('tokens and cost per model', () => {
  const row = (calls: number, costUsd: number, unpricedCalls: number): ModelUsage => ({ role: 'task', model: 'm', calls, callsWithTokens: 0, inputTokens: 0, outputTokens: 0, costUsd, unpricedCalls });
  it('says unpriced for a model whose calls reported no dollars, never $0', () => {
    expect(costText(row(5, 0, 5))).toBe('unpriced');
    expect(costText(row(5, 0, 0))).toBe('$0');
    expect(costText(row(5, 0.0123, 2))).toBe('$0.01 + 2 unpriced calls');
    expect(totalCostText(0, [row(5, 0, 5), { ...row(2, 0, 2), role: 'reflection' }])).toBe('unpriced');
    expect(totalCostText(0.5, [row(5, 0.5, 0), { ...row(2, 0, 2), role: 'reflection' }])).toBe('$0.50 + unpriced');
    expect(totalCostText(0, undefined)).toBe('$0');
  });

  it('renders a row per model with its calls and tokens', () => {
    const html = renderUsageTable([{ role: 'reflection', model: 'gpt-<x>', calls: 3, callsWithTokens: 3, inputTokens: 12345, outputTokens: 67, costUsd: 0.25, unpricedCalls: 0 }, row(4, 0, 4)]);
    expect(html).toContain('<td>reflection</td><td><code>gpt-&lt;x&gt;</code></td><td class="num">3</td><td class="num">12,345</td><td class="num">67</td><td class="num cost">$0.25</td>');
    expect(html).toContain('<td class="num">4</td><td class="num">not reported</td><td class="num">not reported</td><td class="num cost">unpriced</td>');
  });
});

describe('the runtime check says which work it predicts for', () => {
  const intervals = [
    { slot: 0, kind: 'seed' as const, start: 0, end: 10 },
    { slot: 0, kind: 'reflection' as const, start: 10, end: 30 },
  ];
  const note = (stopReason: string, metricCalls: number) => {
    const check = checkRuntimeModel({ result: { ...result, stopReason, metricCalls }, intervals, workers: 2, schedule: { kind: 'batched', parents: 1, perParent: 1 }, minibatchSize: 1, budget: 10 });
    return check.ok ? check.workNote : check.reason;
  };
  it('names the calls made when the run stopped early, and the budget when it spent it', () => {
    expect(note('stopped', 7)).toBe('the calls the run made, since it stopped (stopped) before its budget of 10; a prediction for the full budget would describe work it never did');
    expect(note('maxMetricCalls', 8)).toBe("the run's budget (it made 8 calls; the 2 left could pay for no proposal, as the model assumes too)");
    expect(note('maxMetricCalls', 10)).toBe("the run's budget, all of it spent");
  });
});
