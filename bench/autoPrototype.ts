// Research for schedule 'auto' (issue 47), before the rule moved into src/runtimeModel: variants
// of the shapes the runtime already has (async K; the launch order's speculation and freed
// places), a prototype of reflection over several minibatches (combinedReflection.ts) and the
// 'combined' strategy with several limits, each measured like the fixed schedules of the time-to-quality bench
// and against the same target (the sequential loop's mean final best val - 0.005, from
// bench/results/time-to-quality/). Runs go to bench/results/auto-research/<task>/<config>/.
//
//   npx tsx bench/autoPrototype.ts run <variant...> [--tasks ...] [--configs w128-b1500] [--seeds 24]
//   npx tsx bench/autoPrototype.ts table [--tasks ...] [--configs ...] [--seeds 24] [--with 'async 8,async 16']
//   npx tsx bench/autoPrototype.ts list
import { benchArgs } from './cliArgs.js';
import { combinedPromptModel } from './combinedReflection.js';
import { panel, printPanel } from './timeToQualityPanel.js';
import { CONFIGURATIONS, configName, FIXED_SCHEDULES, loadSetting, parseConfiguration, runSetting, SEQUENTIAL, TTQ_TASKS, type StoredSetting } from './timeToQualityRuns.js';
import type { Schedule } from '../src/settingValues.js';
import type { BenchSetting } from './benchTask.js';
import { combinedReflection, type CombinedLimits } from '../src/gepa/reflection/combinedFailures.js';

const FOLDER = 'auto-research';

interface Variant {
  schedule: Schedule;
  about: string;
  options?: BenchSetting['options'];
  wrapReflection?: BenchSetting['wrapReflection'];
}

/** The 'combined' reflection strategy (src/gepa/reflection/combinedFailures.ts) with these limits. */
const combined = (schedule: Schedule, limits: Partial<CombinedLimits>, about: string): Variant => ({ schedule, options: { reflectionStrategy: combinedReflection(limits) }, about });
const seq: Schedule = { kind: 'batched', parents: 1, perParent: 1 };

const VARIANTS: Record<string, Variant> = {
  'sequential strategy combined': combined(seq, {}, "the sequential loop, reflectionStrategy 'combined' (8 recent results, 12 records, 24,000 characters)"),
  'sequential strategy combined 6': combined(seq, { maxRecords: 6 }, "the sequential loop, 'combined' capped at 6 records"),
  'async 4 strategy combined': combined({ kind: 'async', inFlight: 4 }, {}, "async 4, 'combined'"),
  'async 8 strategy combined': combined({ kind: 'async', inFlight: 8 }, {}, "async 8, 'combined'"),
  'async 8 strategy combined 6': combined({ kind: 'async', inFlight: 8 }, { maxRecords: 6 }, "async 8, 'combined' capped at 6 records"),
  'async 16 strategy combined': combined({ kind: 'async', inFlight: 16 }, {}, "async 16, 'combined'"),
  'async 8 strategy combined newest': combined({ kind: 'async', inFlight: 8 }, { spread: false }, "async 8, 'combined', every proposal starting at the newest results"),
  'sequential strategy combined newest': combined(seq, { spread: false }, "the sequential loop, 'combined', starting at the newest results"),
  'async 12': { schedule: { kind: 'async', inFlight: 12 }, about: 'async, 12 in flight' },
  'async 24': { schedule: { kind: 'async', inFlight: 24 }, about: 'async, 24 in flight' },
  'async 6': { schedule: { kind: 'async', inFlight: 6 }, about: 'async, 6 in flight' },
  'async 10': { schedule: { kind: 'async', inFlight: 10 }, about: 'async, 10 in flight' },
  'async 8 fast': { schedule: { kind: 'async', inFlight: 8, speculate: 'rebase-gate', heldSlot: 'free-early' }, about: "async 8 with the launch order's fast options" },
  'async 10 fast': { schedule: { kind: 'async', inFlight: 10, speculate: 'rebase-gate', heldSlot: 'free-early' }, about: "async 10 with the launch order's fast options" },
  'async 12 fast': { schedule: { kind: 'async', inFlight: 12, speculate: 'rebase-gate', heldSlot: 'free-early' }, about: "async 12 with the launch order's fast options" },
  'async 12 gates': { schedule: { kind: 'async', inFlight: 12, speculate: 'rebase-gate' }, about: 'async 12 with gates evaluated ahead, places kept' },
  'async 8 gates': { schedule: { kind: 'async', inFlight: 8, speculate: 'rebase-gate' }, about: 'async 8 with gates evaluated ahead, places kept' },
  'async 16 gates': { schedule: { kind: 'async', inFlight: 16, speculate: 'rebase-gate' }, about: 'async 16 with gates evaluated ahead, places kept' },
  'async 16 combined 3/12': {
    schedule: { kind: 'async', inFlight: 16 },
    wrapReflection: (lm) => combinedPromptModel(lm, { recent: 3, cap: 12 }),
    about: 'async 16, each reflection also reads the records of the 3 previous reflection prompts (12 records at most)',
  },
  'sequential combined 3/12': {
    schedule: { kind: 'batched', parents: 1, perParent: 1 },
    wrapReflection: (lm) => combinedPromptModel(lm, { recent: 3, cap: 12 }),
    about: 'the sequential loop, each reflection also reads the records of the 3 previous reflection prompts (12 records at most)',
  },
  'async 8 combined 3/12': {
    schedule: { kind: 'async', inFlight: 8 },
    wrapReflection: (lm) => combinedPromptModel(lm, { recent: 3, cap: 12 }),
    about: 'async 8, each reflection also reads the records of the 3 previous reflection prompts (12 records at most)',
  },
  'async 32 combined 3/12': {
    schedule: { kind: 'async', inFlight: 32 },
    wrapReflection: (lm) => combinedPromptModel(lm, { recent: 3, cap: 12 }),
    about: 'async 32, each reflection also reads the records of the 3 previous reflection prompts (12 records at most)',
  },
};

const { flag, positional } = benchArgs();
const [command = 'table', ...names] = positional;
const list = (name: string, fallback: readonly string[]) => (flag(name, '') === '' ? [...fallback] : flag(name, '').split(',').map((s) => s.trim()));
const tasks = list('--tasks', TTQ_TASKS);
const configs = list('--configs', ['w128-b1500']).map(parseConfiguration);
const seeds = Array.from({ length: Number(flag('--seeds', '24')) }, (_, i) => Number(flag('--from', '0')) + i);

if (command === 'list') {
  for (const [name, v] of Object.entries(VARIANTS)) console.log(`${name}: ${v.about}`);
} else if (command === 'run') {
  for (const name of names) if (!VARIANTS[name]) throw new Error(`unknown variant '${name}' (npx tsx bench/autoPrototype.ts list)`);
  for (const task of tasks) {
    for (const c of configs) {
      for (const name of names) {
        const v = VARIANTS[name] as Variant;
        const setting = { label: name, schedule: v.schedule, about: v.about, ...(v.options ? { options: v.options } : {}), ...(v.wrapReflection ? { wrapReflection: v.wrapReflection } : {}) };
        await runSetting(setting, task, c, seeds, false, (line) => process.stderr.write(`${line}\n`), FOLDER);
      }
    }
  }
} else if (command === 'table') {
  const fixed = list('--with', FIXED_SCHEDULES.map((s) => s.label));
  for (const task of tasks) {
    for (const c of configs) {
      const settings: StoredSetting[] = [
        ...fixed.flatMap((label) => loadSetting(false, task, c, label) ?? []),
        ...Object.keys(VARIANTS).flatMap((name) => loadSetting(false, task, c, name, FOLDER) ?? []),
      ];
      const p = panel(task, c, settings, seeds);
      if (p) printPanel(p);
      else console.log(`\n(${task} ${configName(c)}: no ${SEQUENTIAL} runs in bench/results/time-to-quality/ yet)`);
    }
  }
} else {
  throw new Error(`unknown command '${command}' (run | table | list)`);
}
void CONFIGURATIONS;
