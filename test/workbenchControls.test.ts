// The workbench's controls do what they say, from the page's request (POST /api/control) and from
// `gepa-actors control`: drain ends a running run with its result after the work in flight; stop
// ends it within the grace; resume continues a finished run with a larger budget; branch starts a
// new run in <runDir>/branches/<n> from a chosen candidate with changed settings, linked from both
// runs' views; an optimizer actor of this process is drained by message. Resumed and branched runs
// are the real command, run in this process (test/support/inProcessLauncher.ts) instead of a new one.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, toPromise } from 'xstate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/program.js';
import { optimizerMachine } from '../machines/optimize.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import { readRunLog } from '../src/storage/runLog.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { startWorkbench as serveWorkbench, type Workbench } from '../src/workbench/serveWorkbench.js';
import { inProcessLauncher } from './support/inProcessLauncher.js';
import { memoryIo } from './support/memoryIo.js';

let root: string;
let finishedDir: string;
let finished: OptimizeResult;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'gepa-wb-controls-'));
  finishedDir = join(root, 'finished');
  const io = memoryIo();
  expect(await runCli(['demo', '--json', '--run-dir', finishedDir, '--budget', '100', '--workers', '4', '--metric-call-ms', '0', '--reflection-ms', '0'], io)).toBe(0);
  finished = JSON.parse(io.out().trimEnd().split('\n').at(-1) ?? '') as OptimizeResult;
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function until(what: string, ok: () => boolean, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const lastResult = (dir: string) => {
  const last = readRunLog(join(dir, 'log.jsonl')).records.at(-1);
  return last?.t === 'result' ? last.result : undefined;
};

/** POST a control as the page does. */
async function post(workbench: Workbench, body: unknown, run = ''): Promise<{ status: number; json: Record<string, unknown> }> {
  const url = new URL(workbench.url);
  const res = await fetch(`${url.origin}/api/control?run=${encodeURIComponent(run)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-workbench-token': url.searchParams.get('token') ?? '' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function get(workbench: Workbench, path: string, run = ''): Promise<string> {
  const url = new URL(workbench.url);
  return (await fetch(`${url.origin}${path}?run=${encodeURIComponent(run)}&token=${url.searchParams.get('token')}`)).text();
}

/** A demo slow enough to be stopped (simulated latencies in real time), started and not awaited. */
function slowDemo(dir: string, launch?: ReturnType<typeof inProcessLauncher>['launch']) {
  const io = memoryIo({ cwd: root });
  const done = runCli(['demo', '--json', '--run-dir', dir, '--budget', '3000', '--workers', '4', '--metric-call-ms', '10', '--reflection-ms', '60'], launch ? { ...io, launch } : io);
  return { io, done, result: async () => JSON.parse(io.out().trimEnd().split('\n').at(-1) ?? '') as OptimizeResult };
}

describe('the controls, from the page', () => {
  it('branch: a new run from a chosen candidate with another schedule and budget, linked both ways', async () => {
    const { launch, launched } = inProcessLauncher();
    const workbench = await serveWorkbench({ runDir: finishedDir }, { launch });
    try {
      const from = finished.bestIndex;
      const answer = await post(workbench, { action: 'branch', candidate: from, budget: 90, schedule: 'async:2' });
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.json.branch).toBe('branches/1');
      expect(await launched[0]?.done).toBe(0);
      const branchDir = join(finishedDir, 'branches', '1');
      const config = JSON.parse(readFileSync(join(branchDir, 'config.json'), 'utf8'));
      expect(config.settings.schedule).toMatchObject({ kind: 'async', inFlight: 2 });
      const result = lastResult(branchDir);
      expect(result?.candidates[0]).toEqual(finished.candidates[from]);
      expect(result?.metricCalls).toBeLessThanOrEqual(90);
      // Both views link: the origin lists the branch, the branch names its origin and candidate.
      expect(await get(workbench, '/')).toMatch(/data-run="branches\/1"[^>]*>branch 1<\/a>: from candidate #\d+/);
      expect(await get(workbench, '/', 'branches/1')).toContain(`Branch 1 of <a data-run="" href="#">its origin run</a>: started from candidate #${from}`);
      // A branch with a setting the command refuses leaves nothing behind.
      const refused = await post(workbench, { action: 'branch', candidate: 0, schedule: 'async:0' });
      expect(refused.status).toBe(400);
      expect(String(refused.json.error)).toMatch(/the branch did not start: the command exited with 2: .*--schedule/);
      expect(existsSync(join(finishedDir, 'branches', '2'))).toBe(false);
      expect(existsSync(join(finishedDir, 'branches', '2.json'))).toBe(false);
    } finally {
      await workbench.close();
    }
  });

  it('resume: a finished run goes on with a larger budget, in the same directory', async () => {
    const { launch, launched } = inProcessLauncher();
    const workbench = await serveWorkbench({ runDir: finishedDir }, { launch });
    try {
      const answer = await post(workbench, { action: 'resume', budget: 160 });
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(await launched[0]?.done).toBe(0);
      expect(launched[0]?.args).toEqual(expect.arrayContaining(['demo', '--resume', '--budget', '160', '--run-dir', finishedDir]));
      const result = lastResult(finishedDir);
      expect(result?.metricCalls).toBeGreaterThan(finished.metricCalls);
      expect(result?.metricCalls).toBeLessThanOrEqual(160);
      expect(result?.candidates[0]).toEqual(finished.candidates[0]);
      expect(await get(workbench, '/api/state')).toContain('"budget":160');
    } finally {
      await workbench.close();
    }
  });

  it('drain and stop: an optimizer actor of this process ends with its result', async () => {
    for (const action of ['drain', 'stop'] as const) {
      const task = createDemoTask({ seed: 1, metricCallMs: 10, reflectionMs: 60 });
      const actor = createActor(optimizerMachine, {
        input: { seedCandidate: task.seedCandidate, trainset: task.trainset, valset: task.valset, adapter: task.adapter, reflectionLm: task.reflectionLm, maxMetricCalls: 3000, workers: 4 },
      });
      const workbench = await serveWorkbench({ actor });
      const accepted: number[] = [];
      actor.on('candidate.accepted', (e) => accepted.push(e.index));
      actor.start();
      try {
        await until('a first candidate', () => accepted.length > 0);
        expect((await post(workbench, { action })).status).toBe(200);
        const result = await toPromise(actor);
        expect(result.stopReason).toBe('stopped');
        expect(result.metricCalls).toBeLessThan(3000);
        expect(await get(workbench, '/api/state')).toContain('"status":"stopped"');
      } finally {
        await workbench.close();
      }
    }
  });
});

describe('the controls, from gepa-actors control', () => {
  it('drain and stop end a run another command runs, through its STOP file', async () => {
    for (const action of ['drain', 'stop'] as const) {
      const dir = join(root, `slow-${action}`);
      const run = slowDemo(dir);
      await until('the seed', () => existsSync(join(dir, 'log.jsonl')) && readFileSync(join(dir, 'log.jsonl'), 'utf8').includes('"t":"seed"'));
      const io = memoryIo({ cwd: root });
      expect(await runCli(['control', dir, action], io), io.err()).toBe(0);
      expect(io.out()).toMatch(action === 'drain' ? /^draining: / : /^stopping: /);
      expect(await run.done).toBe(0);
      const result = await run.result();
      expect(result.stopReason).toBe('stopped');
      expect(result.metricCalls).toBeLessThan(3000);
      expect(existsSync(join(dir, 'STOP'))).toBe(false);
      // Not running any more: a second request is refused.
      const again = memoryIo({ cwd: root });
      expect(await runCli(['control', dir, action], again)).toBe(2);
      expect(again.err()).toContain('not running');
    }
  });

  it('resume and branch start the command again; a bad request exits 2 and changes nothing', async () => {
    const { launch, launched } = inProcessLauncher();
    const io = { ...memoryIo({ cwd: root }), launch };
    const before = lastResult(finishedDir)?.metricCalls ?? 0;
    expect(await runCli(['control', finishedDir, 'resume', '--budget', String(before + 40)], io), io.err()).toBe(0);
    expect(await launched[0]?.done).toBe(0);
    expect(lastResult(finishedDir)?.metricCalls).toBeGreaterThan(before);
    const branched = { ...memoryIo({ cwd: root }), launch };
    expect(await runCli(['control', finishedDir, 'branch', '--candidate', '0', '--budget', '80', '--json'], branched), branched.err()).toBe(0);
    const outcome = JSON.parse(branched.out());
    expect(outcome).toMatchObject({ ok: true, branch: expect.stringMatching(/^branches\/\d+$/) });
    expect(await launched[1]?.done).toBe(0);
    expect(lastResult(join(finishedDir, outcome.branch))?.candidates[0]).toEqual(finished.candidates[0]);
    for (const args of [['branch', '--candidate', '999'], ['branch'], ['explode'], ['resume', '--budget', '0']]) {
      const bad = { ...memoryIo({ cwd: root }), launch };
      expect(await runCli(['control', finishedDir, ...args], bad), args.join(' ')).toBe(2);
    }
    expect(launched).toHaveLength(2);
  });
});
