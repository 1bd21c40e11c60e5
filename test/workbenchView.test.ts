// What the workbench knows of a run, read from its directory or from its events: the finished
// view of a demo run's directory draws the report's own panels, byte for byte; the log read line
// by line, before its result, already holds the final pool (scores, per-example scores, when
// each was found); a run's events give the same pool; a run cut off (no result, no live LOCK)
// reads as interrupted; a torn last line waits for its end.
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { readRunLog } from '../src/storage/runLog.js';
import { RunDirectoryFollower } from '../src/workbench/runDirectoryFollower.js';
import { readInvocation } from '../src/storage/runInvocation.js';
import { RunView } from '../src/workbench/runView.js';
import { renderPanels, WORKBENCH_PANELS } from '../src/workbench/workbenchPanels.js';
import { optimize } from '../machines/optimize.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { memoryIo } from './support/memoryIo.js';

let root: string;
let runDir: string;
let result: OptimizeResult;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gepa-view-'));
  runDir = join(root, 'run');
  const io = memoryIo();
  const argv = ['demo', '--json', '--run-dir', runDir, '--budget', '160', '--schedule', 'async:3', '--workers', '4', '--metric-call-ms', '0', '--reflection-ms', '0'];
  expect(await runCli(argv, io)).toBe(0);
  result = JSON.parse(io.out().trimEnd().split('\n').at(-1) ?? '') as OptimizeResult;
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The run directory as the workbench reads it: one look. */
function followed(dir: string): RunView {
  const invocation = readInvocation(dir);
  const view = new RunView(invocation ? { names: invocation.models } : {});
  new RunDirectoryFollower(dir, view, () => {}).poll();
  return view;
}

describe('the workbench view of a run directory', () => {
  it("draws a finished run's figures with the report's own panels, byte for byte (cards, charts, lineage, front, best candidate, proposals, tokens)", () => {
    const view = followed(runDir);
    expect(view.status).toBe('finished');
    expect(view.result).toEqual(result);
    const invocation = readInvocation(runDir);
    expect(invocation?.title).toBe('GEPA demo: async 3 on 4 workers');
    const panels = renderPanels(view, new Set(WORKBENCH_PANELS), { title: invocation?.title ?? '', branches: [], hasReport: true, liveOnly: true });
    const report = readFileSync(join(runDir, 'report.html'), 'utf8');
    // The held-out test score card comes from facts.json, written with report.html.
    expect(panels.cards).toContain('held-out test score');
    for (const id of ['cards', 'overTime', 'overCalls', 'lineage', 'pareto', 'bestCandidate', 'proposals', 'modelUsage'] as const) {
      expect(panels[id]?.length, id).toBeGreaterThan(100);
      expect(report.includes(panels[id] as string), `${id} is in report.html as drawn`).toBe(true);
    }
    // What only the run's process saw is pointed to, not drawn differently.
    expect(panels.valsetAnswers).toContain('report.html');
    expect(panels.timeline).toContain('--ui');
  });

  it("with --inspect, shows what only the run's process saw: its worker slots (report.html's timeline, byte for byte), its actors and its proposals in flight", async () => {
    const dir = join(root, 'inspected');
    const argv = ['demo', '--json', '--inspect', '--run-dir', dir, '--budget', '160', '--schedule', 'async:3', '--workers', '4', '--metric-call-ms', '0', '--reflection-ms', '0'];
    expect(await runCli(argv, memoryIo())).toBe(0);
    const view = followed(dir);
    const panels = renderPanels(view, new Set(WORKBENCH_PANELS), { title: '', branches: [], hasReport: true, liveOnly: true });
    const report = readFileSync(join(dir, 'report.html'), 'utf8');
    for (const id of ['timeline', 'actors'] as const) {
      expect(panels[id], id).toContain(id === 'timeline' ? 'slot-bar' : 'proposer');
      expect(report.includes(panels[id] as string), `${id} is in report.html as drawn`).toBe(true);
    }
    // Its proposals' stages, line by line as a watcher reads them: at most K = 3 in flight, each with its stage, none once the run is over.
    const lines = readFileSync(join(dir, 'activity.jsonl'), 'utf8').trim().split('\n');
    const stepping = new RunView();
    let most = 0;
    for (const line of lines) {
      stepping.applyActivity(JSON.parse(line));
      most = Math.max(most, stepping.inFlight.size);
      for (const p of stepping.inFlight.values()) expect(['starting', 'merge', 'parent minibatch', 'reflection', 'child minibatch', 'valset']).toContain(p.stage);
    }
    expect(most).toBe(3);
    expect(view.inFlight.size).toBe(0);
    expect(stepping.slotIntervals.length).toBeGreaterThan(result.metricCalls / 4);
  });

  it('holds the final pool before the result is logged: scores, per-example scores and when each candidate was found', () => {
    const { records } = readRunLog(join(runDir, 'log.jsonl'));
    const view = new RunView();
    for (const r of records.slice(0, -1)) view.applyLogRecord(r);
    expect(records.at(-1)?.t).toBe('result');
    expect(view.result).toBeUndefined();
    const live = view.reportInput('live').result;
    expect(live.candidates).toEqual(result.candidates);
    expect(live.parents).toEqual(result.parents);
    expect(live.valScores).toEqual(result.valScores);
    expect(live.valSubscores).toEqual(result.valSubscores);
    expect(live.discoveryMetricCalls).toEqual(result.discoveryMetricCalls);
    expect(live.discoveryElapsedMs).toEqual(result.discoveryElapsedMs);
    expect(live.bestIndex).toBe(result.bestIndex);
    expect(view.metricCalls).toBe(result.metricCalls);
    expect(view.reflectionCalls).toBe(result.reflectionCalls);
    // The accepted candidates carry the prompt that wrote them, and the log holds its reply.
    const child = view.candidates[1];
    const [prompt] = Object.values(child?.prompts ?? {});
    expect(prompt).toContain('```');
    expect(view.replyTo(prompt as string)?.text.length).toBeGreaterThan(0);
  });

  it("gives the same pool from a run's events as from its log", async () => {
    const task = createDemoTask({ seed: 3 });
    const view = new RunView({ live: true });
    const dir = join(root, 'events');
    const got = await optimize({
      seedCandidate: task.seedCandidate, trainset: task.trainset, valset: task.valset, adapter: task.adapter, reflectionLm: task.reflectionLm,
      maxMetricCalls: 140, schedule: { kind: 'batched', parents: 2, perParent: 2 }, workers: 4, runDir: dir, runIdentity: { reflectionLm: 'demo', adapter: 'demo' },
      onEvent: (event) => view.applyEvent(event),
    });
    const fromEvents = view.reportInput('events').result;
    const fromLog = new RunView();
    for (const r of readRunLog(join(dir, 'log.jsonl')).records.slice(0, -1)) fromLog.applyLogRecord(r);
    for (const v of [fromEvents, fromLog.reportInput('log').result]) {
      expect(v.candidates).toEqual(got.candidates);
      expect(v.valSubscores).toEqual(got.valSubscores);
      expect(v.discoveryMetricCalls).toEqual(got.discoveryMetricCalls);
      expect(v.discoveryElapsedMs).toEqual(got.discoveryElapsedMs);
    }
    expect(view.metricCalls).toBe(got.metricCalls);
    expect(view.ended.map((p) => [p.step, p.task, p.outcome])).toEqual(got.proposals.map((p) => [p.step, p.task, p.outcome]));
  });

  it('shows a failover once, as a warning with its cause: from the log read from a directory, from the event in the run\'s process', () => {
    const notice = { reason: 'worker lost' as const, calls: 12, workers: ['host:41:0'], waitedMs: 1100, keys: [], atMs: 5000 };
    const read = new RunView();
    read.applyLogRecord({ t: 'rerun', ...notice });
    const live = new RunView({ live: true });
    live.applyEvent({ type: 'calls.rerun', ...notice }, 250);
    live.applyLogRecord({ t: 'rerun', ...notice });
    for (const view of [read, live]) {
      expect(view.notices.map((n) => [n.level, n.message])).toEqual([['warning', 'failover (worker lost: host:41:0): 1 worker lost, 12 calls re-run, 1.1 s lost']]);
    }
  });

  it('reads a run cut off (no result, its LOCK left by a dead process) as interrupted, and waits for a torn last line', () => {
    const dir = join(root, 'cut');
    const { records } = readRunLog(join(runDir, 'log.jsonl'));
    const lines = records.slice(0, 60).map((r) => JSON.stringify(r));
    const torn = JSON.stringify(records[60]);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), readFileSync(join(runDir, 'config.json')));
    writeFileSync(join(dir, 'log.jsonl'), `${lines.join('\n')}\n${torn.slice(0, 25)}`);
    writeFileSync(join(dir, 'LOCK'), JSON.stringify({ pid: 2 ** 22 + 12345, hostname: hostname(), token: 'x' }));
    const view = new RunView();
    const follower = new RunDirectoryFollower(dir, view, () => {});
    follower.poll();
    expect(view.status).toBe('interrupted');
    const calls = view.metricCalls;
    expect(calls).toBe(records.slice(0, 60).filter((r) => r.t === 'eval').length);
    appendFileSync(join(dir, 'log.jsonl'), `${torn.slice(25)}\n`);
    follower.poll();
    expect(view.metricCalls).toBe(calls + (records[60]?.t === 'eval' ? 1 : 0));
  });
});
