// Behaviour fingerprints: a SHA-256 of each run's whole figures (every proposal's record, every
// discovery's simulated time and score, calls, the best candidate, the held-out score) for a set
// of schedules on three tasks in simulated time. A refactor that must not change behaviour records
// them before and checks them after: one differing bit in any run changes its hash.
//
//   npx tsx bench/resultHashes.ts record [--seeds 6]   writes bench/results/result-hashes.json
//   npx tsx bench/resultHashes.ts check                 re-runs what is stored; exit 1 on any difference
import { readFileSync, writeFileSync } from 'node:fs';
import { contentHash } from '../src/identity/contentHash.js';
import { benchRun } from './benchTask.js';
import { benchArgs } from './cliArgs.js';
import { STORED_SETTINGS, STORED_TASKS, STORED_WORKLOAD } from './storedRuns.js';

const FILE = new URL('./results/result-hashes.json', import.meta.url);

type Hashes = Record<string, string>;

async function hashes(seeds: number): Promise<Hashes> {
  const out: Hashes = {};
  for (const task of STORED_TASKS) {
    for (const setting of STORED_SETTINGS) {
      for (let seed = 0; seed < seeds; seed++) {
        const figures = await benchRun(setting, seed, { ...STORED_WORKLOAD, task });
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
  writeFileSync(FILE, `${JSON.stringify({ seeds, workload: STORED_WORKLOAD, hashes: await hashes(seeds) }, null, 1)}\n`);
} else if (command === 'check') {
  const stored = JSON.parse(readFileSync(FILE, 'utf8')) as { seeds: number; hashes: Hashes };
  const now = await hashes(stored.seeds);
  const differ = Object.keys(stored.hashes).filter((k) => stored.hashes[k] !== now[k]);
  console.log(differ.length === 0 ? `all ${Object.keys(stored.hashes).length} runs reproduce bit for bit` : `${differ.length} of ${Object.keys(stored.hashes).length} runs differ:\n${differ.join('\n')}`);
  process.exitCode = differ.length === 0 ? 0 : 1;
} else {
  throw new Error(`unknown command '${command}': record or check`);
}
