// What a fault in the fleet costs a run (issue 48's table): the task of bench/support/fleetTask.ts
// (8 x 8 on 256 slots, budget 3,000, ~100 ms metric calls and reflections) run locally, then on 8
// `gepa-actors worker` processes x concurrency 32 through Redis, undisturbed and with each fault
// injected once a third of the budget is spent: 2 workers killed -9 (two fresh ones started at
// once), 2 frozen with SIGSTOP for 15 s, 2 cut off the network for 15 s (their links down: they
// run in network namespaces of their own, test/support/netnsHosts.ts, root only), Redis killed
// -9 and restarted empty 1 s later. Each row: wall-clock, ratio to the local run, the result's
// hash (timings left out: a fault may cost time, never change the result) and metric calls.
//
//   npx tsx bench/fleetFaults.ts [--rows local,clean,kill,stop,cut,redis] [--runs 1] [--netns] [--label after] [--before DIR] [--batch-jobs on|off|auto|both|all]
//
// --netns puts Redis and every worker in a namespace of its own (calls cross veth links);
// otherwise they use loopback and only the cut row's two victims live in namespaces.
// --before DIR: another checkout (e.g. `git archive a1c604b | tar -x -C DIR`, DIR/node_modules a
// link to this one's) runs each row too, right after this one's, its own run and its own workers
// (the adapter module is this checkout's either way): before and after from one invocation.
// --batch-jobs: the executor's batchJobs on, off, auto, or side by side: both (versions 'after
// batch' and 'after per-example') or all three (and 'after auto'; 'auto' needs a version that
// knows it, so not with --before); left out, the executor's default.
// Writes bench/results/fleet-faults-<label>[-netns].json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpus, loadavg } from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import { optimize, type OptimizeResult } from '../src/index.js';
import { bullmqConnection } from '../src/executors/redisConnection.js';
import { contentHash } from '../src/identity/contentHash.js';
import { startRedisServer, startWorkerProcess, type WorkerProcess } from '../test/support/testRedis.js';
import { createNetnsHosts, netnsSupport, type NetnsHost, type NetnsHosts } from '../test/support/netnsHosts.js';
import { essence } from '../test/support/demoRun.js';
import { benchArgs } from './cliArgs.js';
import { FLEET_TASK, fleetRunConfig } from './support/fleetTask.js';

const ROWS = ['local', 'clean', 'kill', 'stop', 'cut', 'redis'] as const;
type Row = (typeof ROWS)[number];
const PROCESSES = 8;
const CONCURRENCY = 32;
const VICTIMS = 2;
const FAULT_AT_CALLS = 1000;
const FROZEN_MS = 15_000;
const REDIS_DOWN_MS = 1000;
// A run that has not ended by then is aborted and reported as such.
const RUN_LIMIT_MS = 240_000;

const { flag } = benchArgs();
const rows = flag('--rows', ROWS.join(',')).split(',') as Row[];
for (const row of rows) if (!ROWS.includes(row)) throw new Error(`unknown row "${row}"; rows: ${ROWS.join(', ')}`);
const runs = Number(flag('--runs', '1'));
const label = flag('--label', 'now');
const NETNS = process.argv.includes('--netns');
const BEFORE = process.argv.includes('--before') ? resolve(flag('--before', '')) : undefined;
const ADAPTER = `${fileURLToPath(new URL('./support/fleetTask.ts', import.meta.url))}#adapter`;

const BATCH_JOBS = flag('--batch-jobs', 'default');
if (!['on', 'off', 'auto', 'both', 'all', 'default'].includes(BATCH_JOBS)) throw new Error(`--batch-jobs: on, off, auto, both or all, got "${BATCH_JOBS}"`);

/** A version of the code: its optimize(), the checkout its workers run from, and the executor's batchJobs (unset: its default). */
interface Version {
  name: string;
  optimize: typeof optimize;
  root?: string;
  batchJobs?: boolean | 'auto';
}
const SETTING = { on: true, off: false, auto: 'auto' } as const;
const variants = (name: string, version: Omit<Version, 'name'>): Version[] =>
  BATCH_JOBS === 'both' || BATCH_JOBS === 'all'
    ? [
        { name: `${name} per-example`, ...version, batchJobs: false },
        { name: `${name} batch`, ...version, batchJobs: true },
        ...(BATCH_JOBS === 'all' ? [{ name: `${name} auto`, ...version, batchJobs: 'auto' as const }] : []),
      ]
    : [{ name, ...version, ...(BATCH_JOBS === 'default' ? {} : { batchJobs: SETTING[BATCH_JOBS as keyof typeof SETTING] }) }];
const versions: Version[] = variants('after', { optimize });
if (BEFORE) {
  const loaded = (await import(pathToFileURL(resolve(BEFORE, 'src/index.ts')).href)) as { optimize: typeof optimize };
  versions.push(...variants('before', { optimize: loaded.optimize, root: BEFORE }));
}
const netns = netnsSupport();
if (NETNS && !netns.ok) throw new Error(`--netns: ${netns.reason}`);

/** CPU seconds a process has used so far (Linux /proc; 0 once it is gone). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

interface Fleet {
  redisUrl: string;
  /** CPU seconds used so far by the workers alive now and by Redis. */
  cpu(): { workers: number; redis: number };
  workers: WorkerProcess[];
  /** The namespaces of worker i (undefined: loopback). */
  hostOf: Array<NetnsHost | undefined>;
  startWorker(host?: NetnsHost): Promise<WorkerProcess>;
  killRedis(): Promise<void>;
  restartRedis(): Promise<void>;
  close(): Promise<void>;
}

const queueName = () => `gepa-fleet-bench-${process.pid}`;

async function startFleet(row: Row, hosts: NetnsHosts | undefined, version: Version): Promise<Fleet> {
  const password = `bench-${process.pid}`;
  const redisHost = NETNS ? hosts!.addHost() : undefined;
  const serverOptions = redisHost ? { host: redisHost, password } : { password, ...(hosts ? { alsoBind: hosts.bridgeAddress } : {}) };
  let redis = await startRedisServer(undefined, serverOptions);
  if (!redis) throw new Error('redis-server did not start');
  const port = redis.port;
  const url = redis.url;
  const remoteAddress = redisHost?.address ?? hosts?.bridgeAddress;
  const urlFrom = (host: NetnsHost | undefined) => (host ? `redis://:${password}@${remoteAddress}:${port}` : url);
  const startWorker = (host?: NetnsHost) =>
    startWorkerProcess(
      ['--adapter', ADAPTER, '--redis', urlFrom(host), '--queue', queueName(), '--concurrency', String(CONCURRENCY)],
      60_000,
      host ? [...host.wrapper] : [],
      version.root,
    );
  const hostOf = Array.from({ length: PROCESSES }, (_, i) => (NETNS || (row === 'cut' && i < VICTIMS) ? hosts!.addHost() : undefined));
  const workers = await Promise.all(hostOf.map((host) => startWorker(host)));
  const extra: WorkerProcess[] = [];
  return {
    redisUrl: url,
    workers,
    hostOf,
    async startWorker(host) {
      const worker = await startWorker(host);
      extra.push(worker);
      return worker;
    },
    cpu: () => ({
      workers: [...workers, ...extra].reduce((sum, w) => sum + cpuSeconds(w.child.pid), 0),
      redis: cpuSeconds(redis?.child.pid),
    }),
    async killRedis() {
      await redis?.stop();
      redis = undefined;
    },
    async restartRedis() {
      redis = await startRedisServer(port, serverOptions);
      if (!redis) throw new Error('redis-server did not restart');
    },
    async close() {
      for (const w of [...workers, ...extra]) if (w.child.signalCode === null && w.child.exitCode === null) w.child.kill('SIGCONT');
      await Promise.all([...workers, ...extra].map((w) => w.stop('SIGKILL')));
      await redis?.stop();
    },
  };
}

let faultAt = '';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const signal = (child: ChildProcess, name: NodeJS.Signals) => child.kill(name);

/**
 * Waits until every victim holds a job (a worker between steps holds none, and losing it would
 * cost nothing); false when that did not happen within 10 s.
 */
async function victimsBusy(fleet: Fleet, victims: readonly WorkerProcess[]): Promise<boolean> {
  const queue = new Queue(queueName(), { connection: bullmqConnection(fleet.redisUrl) });
  try {
    const deadline = performance.now() + 10_000;
    while (performance.now() < deadline) {
      const owners = new Set((await queue.getJobs(['active'], 0, -1)).map((job) => job.processedBy?.split(':')[1]));
      if (victims.every((v) => owners.has(String(v.child.pid)))) return true;
      await sleep(2);
    }
    return false;
  } finally {
    await queue.close();
  }
}

/** Injects the row's fault while the victims hold jobs; resolves when the fault is over (the frozen workers let go, the links back). */
async function injectFault(row: Row, fleet: Fleet, hosts: NetnsHosts | undefined, clock: () => string): Promise<string> {
  const victims = fleet.workers.slice(0, VICTIMS);
  const busy = await victimsBusy(fleet, victims);
  if (!busy) return 'none: the victims held no job within 10 s';
  faultAt = clock();
  switch (row) {
    case 'kill':
      for (const v of victims) signal(v.child, 'SIGKILL');
      await Promise.all(victims.map((_, i) => fleet.startWorker(fleet.hostOf[i])));
      return `${VICTIMS} workers killed -9, ${VICTIMS} fresh ones started`;
    case 'stop':
      for (const v of victims) signal(v.child, 'SIGSTOP');
      await sleep(FROZEN_MS);
      for (const v of victims) signal(v.child, 'SIGCONT');
      return `${VICTIMS} workers frozen ${FROZEN_MS / 1000} s`;
    case 'cut':
      for (let i = 0; i < VICTIMS; i++) hosts!.cut(fleet.hostOf[i]!);
      await sleep(FROZEN_MS);
      for (let i = 0; i < VICTIMS; i++) hosts!.restore(fleet.hostOf[i]!);
      return `${VICTIMS} links cut ${FROZEN_MS / 1000} s`;
    case 'redis':
      await fleet.killRedis();
      await sleep(REDIS_DOWN_MS);
      await fleet.restartRedis();
      return `Redis killed -9, restarted empty ${REDIS_DOWN_MS / 1000} s later`;
    default:
      return '';
  }
}

interface Measured {
  row: Row;
  version: string;
  wallMs: number;
  resultHash: string;
  metricCalls: number;
  stopReason: string;
  fault: string;
  warnings: string[];
  /** CPU seconds during the run: this process (the run), the workers, Redis. */
  cpu?: { run: number; workers: number; redis: number };
  /** Failovers, as the run reported them ('calls.rerun' events): seconds into the run, reason, calls, workers. */
  reruns: string[];
  /** Set when the run ended before the fault was over (e.g. frozen workers let go after it). */
  faultOverAfterRunMs?: number;
}

async function measure(row: Row, version: Version): Promise<Measured> {
  const warnings: string[] = [];
  const reruns: string[] = [];
  const optimize = version.optimize;
  if (row === 'local') {
    const start = performance.now();
    const result = await optimize({ ...fleetRunConfig(), signal: AbortSignal.timeout(RUN_LIMIT_MS) });
    return { row, version: version.name, ...figures(result, performance.now() - start), fault: '', warnings, reruns };
  }
  if (row === 'cut' && !netns.ok) throw new Error(`the cut row needs network namespaces: ${netns.reason}`);
  const hosts = netns.ok && (NETNS || row === 'cut') ? createNetnsHosts() : undefined;
  let fleet: Fleet | undefined;
  try {
    fleet = await startFleet(row, hosts, version);
    let fault: Promise<string> | undefined;
    const cpuBefore = { run: process.cpuUsage(), ...fleet.cpu() };
    const start = performance.now();
    const result = await optimize({
      ...fleetRunConfig({ kind: 'bullmq', connection: fleet.redisUrl, queue: queueName(), ...(version.batchJobs === undefined ? {} : { batchJobs: version.batchJobs }) }),
      signal: AbortSignal.timeout(RUN_LIMIT_MS),
      onEvent: (event) => {
        const at = `${((performance.now() - start) / 1000).toFixed(2)} s`;
        if (event.type === 'warning') warnings.push(`${at}: ${event.message}`);
        if (event.type === 'calls.rerun') reruns.push(`${at}: ${event.reason}, ${event.calls} calls, waited ${event.waitedMs} ms, ${event.workers.join(' ')}`);
        if (event.type === 'budget.updated' && event.metricCalls >= FAULT_AT_CALLS && row !== 'clean') fault ??= injectFault(row, fleet!, hosts, () => `${((performance.now() - start) / 1000).toFixed(2)} s`);
      },
    });
    const wallMs = performance.now() - start;
    const runCpu = process.cpuUsage(cpuBefore.run);
    const cpuAfter = fleet.cpu();
    const cpu = { run: round2((runCpu.user + runCpu.system) / 1e6), workers: round2(cpuAfter.workers - cpuBefore.workers), redis: round2(cpuAfter.redis - cpuBefore.redis) };
    const described = (await fault) ?? 'none';
    const over = performance.now() - start;
    return { row, version: version.name, ...figures(result, wallMs), fault: described, warnings, reruns, cpu, ...(over > wallMs + 50 ? { faultOverAfterRunMs: Math.round(over - wallMs) } : {}) };
  } finally {
    await fleet?.close();
    hosts?.destroy();
  }
}

const round2 = (x: number) => Math.round(x * 100) / 100;

function figures(result: OptimizeResult, wallMs: number) {
  return { wallMs: Math.round(wallMs), resultHash: contentHash(essence(result)).slice(0, 16), metricCalls: result.metricCalls, stopReason: result.stopReason };
}

const measured: Measured[] = [];
for (let run = 0; run < runs; run++) {
  for (const row of rows) {
    // Which version goes first alternates, so neither always meets the machine in the same state.
    for (const version of run % 2 === 0 ? versions : [...versions].reverse()) {
      process.stderr.write(`run ${run + 1}/${runs}, ${row}, ${version.name} ... `);
      const m = await measure(row, version);
      measured.push(m);
      process.stderr.write(`${(m.wallMs / 1000).toFixed(2)} s, ${m.metricCalls} calls, ${m.resultHash}, ${m.stopReason}${faultAt ? `; fault at ${faultAt}` : ''}${m.cpu ? `; CPU s: run ${m.cpu.run}, workers ${m.cpu.workers}, Redis ${m.cpu.redis}` : ''}\n`);
      for (const line of [...m.reruns, ...m.warnings]) process.stderr.write(`    ${line}\n`);
      faultAt = '';
    }
  }
}

const mean = (xs: number[]) => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);
const seconds = (ms: number) => (ms / 1000).toFixed(2);
const localHash = measured.find((m) => m.row === 'local')?.resultHash;
const wallsOf = (row: Row, version: string) => measured.filter((m) => m.row === row && m.version === version).map((m) => m.wallMs);
console.log(`\nfleet faults (${label}${NETNS ? ', every process in its own network namespace' : ', loopback'}): ${FLEET_TASK.metricCallMs} ms calls, 8 x 8 on 256 slots, budget 3000, ${PROCESSES} workers x ${CONCURRENCY}; means of ${runs} run(s), each version against its own local and undisturbed runs`);
console.log('| run | version | wall (mean, range) | vs local | over undisturbed | result hash | metric calls |\n|---|---|---|---|---|---|---|');
for (const row of rows) {
  for (const version of versions) {
    const group = measured.filter((m) => m.row === row && m.version === version.name);
    const walls = group.map((m) => m.wallMs);
    const wall = mean(walls)!;
    const local = mean(wallsOf('local', version.name));
    const clean = mean(wallsOf('clean', version.name));
    const hashes = [...new Set(group.map((m) => m.resultHash))];
    const same = localHash === undefined ? '' : hashes.every((h) => h === localHash) ? ' (same)' : ' (DIFFERS)';
    const calls = [...new Set(group.map((m) => m.metricCalls))].join(', ');
    console.log(
      `| ${row}${group[0]?.fault ? `: ${group[0].fault}` : ''} | ${version.name} | ${seconds(wall)} s (${seconds(Math.min(...walls))}-${seconds(Math.max(...walls))}) | ` +
        `${local ? `${(wall / local).toFixed(2)}x` : '-'} | ${clean && row !== 'local' && row !== 'clean' ? `${wall >= clean ? '+' : '-'}${seconds(Math.abs(wall - clean))} s` : '-'} | ${hashes.join(', ')}${same} | ${calls} of 3000 |`,
    );
  }
}
const results = {
  benchmark: 'fleet-faults',
  label,
  network: NETNS ? 'Redis and each worker in a network namespace of its own' : 'loopback (the cut row: its victims in namespaces)',
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverageAtEnd: loadavg()[0] },
  settings: { ...FLEET_TASK, runs, processes: PROCESSES, concurrency: CONCURRENCY, victims: VICTIMS, faultAtCalls: FAULT_AT_CALLS, frozenMs: FROZEN_MS, redisDownMs: REDIS_DOWN_MS },
  before: BEFORE,
  measured,
};
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const file = `fleet-faults-${label}${NETNS ? '-netns' : ''}.json`;
writeFileSync(new URL(`./results/${file}`, import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
console.log(`wrote bench/results/${file}`);
