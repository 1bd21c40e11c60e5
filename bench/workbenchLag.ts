// Does the workbench keep up with a 128-slot run, and what does it cost the run? The demo task on
// zero-latency simulated models with 128 worker slots writes its log as fast as this machine lets
// it (a run directory: every metric call a log record), in three setups, interleaved round by round:
//   plain      the run alone;
//   watch      `gepa-actors watch <runDir>` in a process of its own follows the directory, and a
//              page's event stream is held open by a client process (the real command, as a user
//              runs it beside a run);
//   ui         the workbench in the run's process, fed by its events (what `run --ui` does), the
//              client in a process of its own.
// Lag: the wall-clock time from the moment candidate k joins the pool (the run appends its log
// record in that same call) to the first status event in which the client sees k candidates;
// wall-clock of each run beside the plain one (after a warm-up run of each, rounds in rotating
// order). Real time on a loaded machine: compare within one invocation only. `npx tsx bench/workbenchLag.ts [--rounds 3] [--budget 12000] [--workers 128]`
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { optimize } from '../machines/optimize.js';
import { systemClock } from '../src/clock.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import { LiveRunFeed } from '../src/workbench/liveRun.js';
import { RunView } from '../src/workbench/runView.js';
import { startWorkbenchServer, type WorkbenchServer } from '../src/workbench/workbenchServer.js';
import { benchArgs } from './cliArgs.js';
import { median } from './table.js';

const { flag } = benchArgs();
const ROUNDS = Number(flag('--rounds', '3'));
const BUDGET = Number(flag('--budget', '12000'));
const WORKERS = Number(flag('--workers', '128'));
const ROOT = join(import.meta.dirname, '..');
const TSX = ['--import', 'tsx'];

type Setup = 'plain' | 'watch' | 'ui';

interface Measured {
  setup: Setup;
  wallMs: number;
  metricCalls: number;
  candidates: number;
  /** Per candidate seen by the client: ms from its joining to the client's status event. */
  lags: number[];
  /** Status events the client received. */
  events: number;
}

/** The line a child prints first (the URL), then its other lines to `onLine`. */
function firstLine(child: ChildProcess, onLine?: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    let first = true;
    lines.on('line', (line) => {
      if (first) {
        first = false;
        resolve(line);
      } else onLine?.(line);
    });
    child.once('exit', (code) => first && reject(new Error(`exited with ${code} before printing`)));
  });
}

/** A page's event stream, held by a process of its own: it prints `{ t, candidates }` per status event. */
function startClient(url: string): { child: ChildProcess; seen: Array<{ t: number; candidates: number }>; ready: Promise<string> } {
  const child = spawn(process.execPath, [...TSX, join(ROOT, 'bench/support/sseClient.ts'), url], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const seen: Array<{ t: number; candidates: number }> = [];
  const ready = firstLine(child, (line) => seen.push(JSON.parse(line) as { t: number; candidates: number }));
  return { child, seen, ready };
}

async function once(setup: Setup, round: number): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), `gepa-wb-lag-${setup}-`));
  const runDir = join(dir, 'run');
  mkdirSync(runDir);
  const task = createDemoTask({ seed: round });
  const joined: number[] = [];
  let watcher: ChildProcess | undefined;
  let server: WorkbenchServer | undefined;
  let feed: LiveRunFeed | undefined;
  let client: ReturnType<typeof startClient> | undefined;
  if (setup === 'watch') {
    watcher = spawn(process.execPath, [...TSX, join(ROOT, 'src/cli.ts'), 'watch', runDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    client = startClient(await firstLine(watcher));
  } else if (setup === 'ui') {
    feed = new LiveRunFeed(new RunView({ live: true }), systemClock, () => server?.changed(), { drain: () => {}, stop: () => {} });
    server = await startWorkbenchServer({ live: feed, dir: runDir });
    client = startClient(server.url);
  }
  if (client) await client.ready;
  const started = Date.now();
  const result = await optimize({
    seedCandidate: task.seedCandidate, trainset: task.trainset, valset: task.valset, adapter: task.adapter, reflectionLm: task.reflectionLm,
    maxMetricCalls: BUDGET, workers: WORKERS, schedule: { kind: 'async', inFlight: WORKERS / 2 }, seed: round, runDir,
    runIdentity: { reflectionLm: 'demo', adapter: 'demo' },
    onEvent: (event) => {
      if (event.type === 'seed.evaluated') joined[0] = Date.now();
      if (event.type === 'candidate.accepted') joined[event.index] = Date.now();
      feed?.onEvent(event);
    },
    ...(feed ? { onSlotInterval: (interval) => feed?.onSlotInterval(interval), inspect: (e: unknown) => feed?.inspect(e) } : {}),
  });
  const wallMs = Date.now() - started;
  // The last status events: the client sees the end within a second of it.
  if (client) await new Promise((r) => setTimeout(r, 1500));
  const lags = client
    ? joined.flatMap((t, k) => {
        const seen = client?.seen.find((s) => s.candidates >= k + 1);
        return seen ? [seen.t - t] : [];
      })
    : [];
  client?.child.kill();
  watcher?.kill();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
  return { setup, wallMs, metricCalls: result.metricCalls, candidates: result.candidates.length, lags, events: client?.seen.length ?? 0 };
}

const results: Measured[] = [];
const SETUPS = ['plain', 'watch', 'ui'] as const;
// A warm-up run of each (the JIT's first runs are slower), not counted; then each round in another order.
for (const setup of SETUPS) await once(setup, 99);
for (let round = 0; round < ROUNDS; round++) {
  for (const setup of [...SETUPS.slice(round % 3), ...SETUPS.slice(0, round % 3)]) {
    const m = await once(setup, round);
    results.push(m);
    const lag = m.lags.length > 0 ? `lag median ${median(m.lags)} ms, max ${Math.max(...m.lags)} ms over ${m.lags.length} candidates, ${m.events} status events` : '';
    process.stderr.write(`round ${round} ${setup.padEnd(5)} ${m.wallMs} ms, ${m.metricCalls} calls, ${m.candidates} candidates ${lag}\n`);
  }
}
console.log(`\n${WORKERS} slots, async ${WORKERS / 2}, budget ${BUDGET}, ${ROUNDS} rounds (median of rounds; lags pooled over rounds)`);
console.log('setup   wall-clock   vs plain   calls/s   lag median   lag p90   lag max');
const plain = median(results.filter((r) => r.setup === 'plain').map((r) => r.wallMs));
for (const setup of ['plain', 'watch', 'ui'] as const) {
  const runs = results.filter((r) => r.setup === setup);
  const wall = median(runs.map((r) => r.wallMs));
  const calls = median(runs.map((r) => r.metricCalls));
  const lags = runs.flatMap((r) => r.lags).sort((a, b) => a - b);
  const p = (q: number) => (lags.length > 0 ? `${lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]} ms` : '-');
  console.log(
    `${setup.padEnd(7)} ${`${wall} ms`.padStart(10)}   ${`${((wall / plain - 1) * 100).toFixed(0)}%`.padStart(7)}   ${String(Math.round(calls / (wall / 1000))).padStart(7)}   ${p(0.5).padStart(10)}   ${p(0.9).padStart(7)}   ${lags.length > 0 ? `${lags.at(-1)} ms` : '-'}`,
  );
}
