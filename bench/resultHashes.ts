// Behaviour fingerprints: a SHA-256 of each run's whole figures (every proposal's record, every
// discovery's simulated time and score, calls, the best candidate, the held-out score) for a set
// of schedules on three tasks in simulated time. A refactor that must not change behaviour records
// them before and checks them after: one differing bit in any run changes its hash.
//
//   npx tsx bench/resultHashes.ts record [--seeds 6]   writes bench/results/result-hashes.json
//   npx tsx bench/resultHashes.ts check                 re-runs what is stored; exit 1 on any difference
import { readFileSync, writeFileSync } from 'node:fs';
import { contentHash } from '../src/identity/contentHash.js';
import { benchRun, type BenchSetting, type Workload } from './benchTask.js';
import { benchArgs } from './cliArgs.js';

// The mechanisms' workload with the optimizer's own defaults (tie order, step minibatches), so the
// default paths are the ones fingerprinted.
const WORKLOAD: Workload = { metricCallMs: 20, reflectionMs: 100, workers: 16, budget: 1500, trainSize: 60, valSize: 30, testSize: 60, simulated: true };

/** The three schedules, then the paths they do not reach: a valset race, merges, async rebasing without its wait. */
const SETTINGS: BenchSetting[] = [
  { label: 'single', schedule: { kind: 'batched', parents: 1, perParent: 1 } },
  { label: '2x2', schedule: { kind: 'batched', parents: 2, perParent: 2 } },
  { label: 'async 8', schedule: { kind: 'async', inFlight: 8 } },
  { label: '4x1 race', schedule: { kind: 'batched', parents: 4, perParent: 1 }, options: { valsetPolicy: { kind: 'race', chunk: 10, margin: 0 } } },
  { label: '2x2 merge', schedule: { kind: 'batched', parents: 2, perParent: 2 }, options: { merge: { maxMerges: 4 } } },
  { label: 'async 8 rebase no-wait race merge', schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseWait: 'none' }, options: { valsetPolicy: { kind: 'race', chunk: 10, margin: 0 }, merge: { maxMerges: 4 } } },
];
const TASKS = ['demo', 'multistep', 'hotel'];
const FILE = new URL('./results/result-hashes.json', import.meta.url);

type Hashes = Record<string, string>;

async function hashes(seeds: number): Promise<Hashes> {
  const out: Hashes = {};
  for (const task of TASKS) {
    for (const setting of SETTINGS) {
      for (let seed = 0; seed < seeds; seed++) {
        const figures = await benchRun(setting, seed, { ...WORKLOAD, task });
        const key = `${task} | ${setting.label} | seed ${seed}`;
        out[key] = contentHash(figures);
        process.stderr.write(`  ${key}: ${out[key]?.slice(0, 16)} (${figures.metricCalls} calls, best ${figures.bestValScore.toFixed(3)})\n`);
      }
    }
  }
  return out;
}

const { flag, positional } = benchArgs();
const [command = 'check'] = positional;
if (command === 'record') {
  const seeds = Number(flag('--seeds', '6'));
  writeFileSync(FILE, `${JSON.stringify({ seeds, workload: WORKLOAD, hashes: await hashes(seeds) }, null, 1)}\n`);
} else if (command === 'check') {
  const stored = JSON.parse(readFileSync(FILE, 'utf8')) as { seeds: number; hashes: Hashes };
  const now = await hashes(stored.seeds);
  const differ = Object.keys(stored.hashes).filter((k) => stored.hashes[k] !== now[k]);
  console.log(differ.length === 0 ? `all ${Object.keys(stored.hashes).length} runs reproduce bit for bit` : `${differ.length} of ${Object.keys(stored.hashes).length} runs differ:\n${differ.join('\n')}`);
  process.exitCode = differ.length === 0 ? 0 : 1;
} else {
  throw new Error(`unknown command '${command}': record or check`);
}
