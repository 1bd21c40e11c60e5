// Async with several children per parent (`schedule.perParent`): a group draws one parent and
// minibatch, evaluates the parent once and reflects N times on that evaluation; each child is
// its own proposal. Checked on the simulated demo: groups share their parent's evaluation (one
// 'parent' evaluation per group, paid by its first proposal), siblings' prompts differ, the
// budget holds, N = 1 is the schedule without the field, and a run cut while a group is half
// decided resumes on its logged path, paying only new work, to the uninterrupted run's pool.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { optimize, type OptimizeResult, type RunEvent, type Schedule } from '../src/index.js';
import { readRunLog } from '../src/storage/runLog.js';
import { resolveSchedule, scheduleSchema } from '../src/config/runSettings.js';
import { RunView } from '../src/workbench/runView.js';
import { renderPanels } from '../src/workbench/workbenchPanels.js';
import { killableSimulatedDemo } from './support/killableSimulatedDemo.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-per-parent-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const BUDGET = 500;
const GROUPS: Schedule = { kind: 'async', inFlight: 6, perParent: 3 };

interface Seen {
  events: RunEvent[];
  prompts: string[];
  calls: number;
}

async function runOnce(schedule: Schedule, seen: Seen, options: { runDir?: string; abortAtMs?: number } = {}): Promise<OptimizeResult> {
  const { clock, task, signal, run } = killableSimulatedDemo(2, options.abortAtMs);
  return run(
    optimize({
      seedCandidate: task.seedCandidate,
      trainset: task.trainset,
      valset: task.valset,
      adapter: {
        ...task.adapter,
        evaluate: (...args: Parameters<typeof task.adapter.evaluate>) => {
          seen.calls++;
          return task.adapter.evaluate(...args);
        },
      },
      reflectionLm: (prompt, ctx) => {
        seen.prompts.push(prompt);
        return task.reflectionLm(prompt, ctx);
      },
      runIdentity: { reflectionLm: 'demo', adapter: 'demo' },
      schedule,
      workers: 16,
      maxMetricCalls: BUDGET,
      seed: 5,
      clock,
      signal,
      onEvent: (e) => seen.events.push(e),
      ...(options.runDir ? { runDir: options.runDir } : {}),
    }),
  );
}

const fresh = (): Seen => ({ events: [], prompts: [], calls: 0 });

describe('async, several children per parent evaluation', () => {
  it('a group shares its parent, minibatch and one parent evaluation; its siblings ask other prompts; the budget holds', async () => {
    const seen = fresh();
    const result = await runOnce(GROUPS, seen);
    expect(result.stopReason).toBe('maxMetricCalls');
    expect(result.metricCalls).toBeLessThanOrEqual(BUDGET);
    expect(seen.calls).toBe(result.metricCalls);
    const siblings = result.proposals.filter((p) => p.siblingOf !== undefined);
    const firsts = result.proposals.filter((p) => p.kind === 'reflective' && p.siblingOf === undefined);
    expect(siblings.length).toBeGreaterThan(firsts.length);
    // One parent evaluation per group, asked by its first proposal.
    const parentEvaluations = seen.events.filter((e) => e.type === 'evaluation.started' && e.target === 'parent');
    expect(parentEvaluations.map((e) => (e as { step: number }).step).sort((a, b) => a - b)).toEqual(firsts.map((p) => p.step).sort((a, b) => a - b));
    // Each sibling drew nothing: its first proposal's parent and minibatch, at the next numbers.
    const at = (type: string, step: number) => JSON.stringify(seen.events.find((e) => e.type === type && (e as { step: number }).step === step));
    for (const s of siblings) {
      const first = s.siblingOf as number;
      expect(s.step - first).toBeGreaterThanOrEqual(1);
      expect(s.step - first).toBeLessThan(3);
      expect(at('candidate.selected', s.step).replace(`"step":${s.step}`, '')).toBe(at('candidate.selected', first).replace(`"step":${first}`, ''));
      expect(at('minibatch.sampled', s.step).replace(`"step":${s.step}`, '')).toBe(at('minibatch.sampled', first).replace(`"step":${first}`, ''));
    }
    // The second and third of a group ask with their sample named, so a model whose answer is a
    // function of its prompt still makes different children.
    expect(seen.prompts.filter((p) => p.startsWith('(Sample 2 ')).length).toBeGreaterThan(0);
    expect(seen.prompts.filter((p) => p.startsWith('(Sample 3 ')).length).toBeGreaterThan(0);
    expect(new Set(result.candidates.map((c) => JSON.stringify(c))).size).toBe(result.candidates.length);
    // The workbench's proposals in flight name a sibling's shared parent evaluation.
    const view = new RunView();
    const firstSibling = siblings.reduce((a, b) => (b.step < a.step ? b : a));
    const upTo = seen.events.findIndex((e) => e.type === 'minibatch.sampled' && e.step === firstSibling.step);
    for (const e of seen.events.slice(0, upTo + 1)) view.applyEvent(e);
    expect(view.inFlight.get(`${firstSibling.step}:0`)).toMatchObject({ siblingOf: firstSibling.siblingOf, stage: 'parent minibatch' });
    const panel = renderPanels(view, new Set(['inFlight']), { title: '', branches: [], hasReport: false, liveOnly: false }).inFlight ?? '';
    expect(panel).toContain(`(parent evaluation of ${firstSibling.siblingOf})`);
  });

  it('perParent 1 is the schedule without it, bit for bit', async () => {
    const a = await runOnce({ kind: 'async', inFlight: 6 }, fresh());
    const b = await runOnce({ kind: 'async', inFlight: 6, perParent: 1 }, fresh());
    expect(b).toEqual(a);
  });

  it('a run cut while a group is half decided resumes on its logged path, paying only new work, within the budget, to the same pool and proposals', async () => {
    const reference = await runOnce(GROUPS, fresh());
    const firstOf = new Map(reference.proposals.map((p) => [`p${p.step}-${p.task}`, p.siblingOf ?? p.step]));
    // The first cut that leaves a group with some of its proposals finished on the log and some not.
    let runDir = '';
    let first: OptimizeResult | undefined;
    let seen = fresh();
    for (const share of [0.35, 0.45, 0.55, 0.65]) {
      runDir = join(scratch, `cut-${share}`);
      seen = fresh();
      first = await runOnce(GROUPS, seen, { runDir, abortAtMs: Math.floor(reference.elapsedMs * share) });
      expect(first.stopReason).toBe('aborted');
      const finished = readRunLog(join(runDir, 'log.jsonl')).records.flatMap((r) => (r.t === 'decision' && r.kind === 'finished' ? [r.id] : []));
      const groupsFinished = new Set(finished.map((id) => firstOf.get(id)));
      const halfDone = [...groupsFinished].some((g) => [...firstOf].some(([id, f]) => f === g && !finished.includes(id)));
      if (halfDone) break;
      first = undefined;
    }
    expect(first).toBeDefined();
    const loggedCalls = () => readRunLog(join(runDir, 'log.jsonl')).records.filter((r) => r.t === 'eval').length;
    const loggedAtCut = loggedCalls();
    const resumedSeen = fresh();
    const resumed = await runOnce(GROUPS, resumedSeen, { runDir });
    expect(resumed.stopReason).toBe('maxMetricCalls');
    const cut = first as OptimizeResult;
    expect(resumed.candidates.slice(0, cut.candidates.length)).toEqual(cut.candidates);
    expect(resumed.parents.slice(0, cut.parents.length)).toEqual(cut.parents);
    expect(resumed.metricCalls).toBe(loggedCalls());
    expect(resumedSeen.calls).toBe(resumed.metricCalls - loggedAtCut);
    expect(resumed.metricCalls).toBeLessThanOrEqual(BUDGET);
    expect(resumed.proposals.filter((p) => p.siblingOf !== undefined).length).toBeGreaterThan(0);
    // In simulated time the resumed run ends with the uninterrupted run's pool and proposals.
    const pool = (r: OptimizeResult) => ({ candidates: r.candidates, parents: r.parents, valScores: r.valScores, bestIndex: r.bestIndex, metricCalls: r.metricCalls });
    expect(pool(resumed)).toEqual(pool(reference));
    const decided = (r: OptimizeResult) => [...r.proposals].sort((a, b) => a.step - b.step);
    expect(decided(resumed)).toEqual(decided(reference));
  });

  it('the config takes perParent as a positive integer; resolved, 1 is left out (a run directory records the schedule as before)', () => {
    const run = { workers: 16, budget: 500, valsetSize: 30, minibatchSize: 3 };
    expect(resolveSchedule({ kind: 'async', inFlight: 8, perParent: 1 }, run)).toEqual(resolveSchedule({ kind: 'async', inFlight: 8 }, run));
    expect(resolveSchedule({ kind: 'async', inFlight: 8, perParent: 3 }, run)).toMatchObject({ kind: 'async', inFlight: 8, perParent: 3 });
    for (const perParent of [0, 1.5, -2, '2']) expect(scheduleSchema.safeParse({ kind: 'async', inFlight: 8, perParent }).success).toBe(false);
    expect(scheduleSchema.safeParse({ kind: 'async', inFlight: 8, perParent: 4 }).success).toBe(true);
  });
});
