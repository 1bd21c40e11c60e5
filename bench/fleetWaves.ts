// Where the undisturbed fleet's time goes: one wave of concurrent metric calls through the bullmq
// executor, as one step of a P x N schedule sends them, against the call's own latency. Worker
// processes (8 x concurrency 32 unless --fleet says, e.g. --fleet 32x1) on loopback Redis run
// `sleep50` (50 ms a call); each wave is sent 15 times, as per-call jobs (`evaluate`), as one
// batch job (`evaluateBatch`, batchJobs true) and as batchJobs 'auto' sizes it (jobs of at most
// the smallest worker's concurrency), and the table gives the median and range of its wall time.
// A wave's time over 50 ms is what the queue adds to every stage of a run's chain.
// `npx tsx bench/fleetWaves.ts [--fleet 8x32] [--label name]`; writes bench/results/fleet-waves[-label].json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { setMaxListeners } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { createBullmqExecutor } from '../src/executors/bullmqExecutor.js';
import type { BatchSlots } from '../src/executors/metricCallExecutor.js';
import type { Evaluation } from '../src/gepa/core/adapter.js';
import { startWorkerProcess, testRedis } from '../test/support/testRedis.js';
import { benchArgs } from './cliArgs.js';

const { flag } = benchArgs();
const fleetShape = /^(\d+)x(\d+)$/.exec(flag('--fleet', '8x32'));
if (!fleetShape) throw new Error('--fleet: processes x concurrency, e.g. 8x32');
const PROCESSES = Number(fleetShape[1]);
const CONCURRENCY = Number(fleetShape[2]);
const label = flag('--label', '');
const SIZES = [1, 8, 30, 64];
const REPEATS = 15;

const redis = await testRedis();
if (redis?.url === undefined) {
  console.error('no Redis: set GEPA_TEST_REDIS_URL or install redis-server');
  process.exit(1);
}
const url = redis.url;
const queue = `gepa-fleet-waves-${process.pid}`;
const workers = await Promise.all(Array.from({ length: PROCESSES }, () => startWorkerProcess(['--adapter', 'bench/support/latencyAdapter.ts#sleep50', '--redis', url, '--queue', queue, '--concurrency', String(CONCURRENCY)])));
const executors = {
  perCall: createBullmqExecutor({ connection: url, queue, batchJobs: false }),
  batch: createBullmqExecutor({ connection: url, queue, batchJobs: true }),
  auto: createBullmqExecutor({ connection: url, queue, batchJobs: 'auto' }),
};
type Mode = keyof typeof executors;
const MODE_NAMES: Record<Mode, string> = { perCall: 'a job per call', batch: 'one batch job', auto: "'auto'" };
const signal = new AbortController().signal;
setMaxListeners(0, signal);
// The executor's job holds its slots itself here: the run's slot accounting is not under test.
const slots: BatchSlots = { runOne: (_index, call) => call(), runAll: async (job) => (await job()) as Evaluation[] };

let n = 0;
const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { medianMs: sorted[Math.floor(sorted.length / 2)] as number, minMs: sorted[0] as number, maxMs: sorted.at(-1) as number };
};
async function waves(size: number, mode: Mode) {
  const executor = executors[mode];
  const times: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    const first = n;
    n += size;
    const started = performance.now();
    if (mode !== 'perCall') {
      const examples = Array.from({ length: size }, (_, i) => ({ example: { n: first + i }, exampleId: first + i, call: { occurrence: 0 } }));
      await executor.evaluateBatch?.({ prompt: `wave ${first}` }, examples, { captureTraces: false, signal }, slots);
    } else {
      await Promise.all(Array.from({ length: size }, (_, i) => executor.evaluate({ prompt: `wave ${first + i}` }, { n: first + i }, first + i, { captureTraces: false, signal })));
    }
    times.push(performance.now() - started);
  }
  return { size, jobs: MODE_NAMES[mode], ...summary(times) };
}

const rows = [];
try {
  for (const mode of ['perCall', 'batch', 'auto'] as const) for (const size of SIZES) rows.push(await waves(size, mode));
} finally {
  await Promise.all(Object.values(executors).map((executor) => executor.close()));
  await Promise.all(workers.map((w) => w.stop()));
  await redis.stop?.();
}
console.log(`waves of 50 ms metric calls, ${PROCESSES} worker processes x ${CONCURRENCY}, loopback Redis (median, range of ${REPEATS})`);
console.log('| calls in the wave | jobs | wall (median) | range | over the call |\n|---:|---|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.size} | ${r.jobs} | ${r.medianMs.toFixed(1)} ms | ${r.minMs.toFixed(1)}-${r.maxMs.toFixed(1)} ms | +${(r.medianMs - 50).toFixed(1)} ms |`);
mkdirSync('bench/results', { recursive: true });
writeFileSync(`bench/results/fleet-waves${label ? `-${label}` : ''}.json`, `${JSON.stringify({ benchmark: 'fleet-waves', machine: { cpus: cpus().length, loadAverageAtEnd: loadavg()[0] }, settings: { processes: PROCESSES, concurrency: CONCURRENCY, callMs: 50, repeats: REPEATS }, rows }, null, 1)}\n`);
process.exit(0);
