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
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { benchArgs } from './cliArgs.js';
import { combinedPromptModel } from './combinedReflection.js';
import { panel, printPanel } from './timeToQualityPanel.js';
import { CONFIGURATIONS, configName, FIXED_SCHEDULES, loadSetting, parseConfiguration, resultsDir, runSetting, SEQUENTIAL, TTQ_TASKS, type StoredSetting } from './timeToQualityRuns.js';
import type { Schedule } from '../src/settingValues.js';
import type { BenchSetting } from './benchTask.js';
import { AUTO_COMBINED_LIMITS, combinedReflection, type CombinedLimits } from '../src/gepa/reflection/combinedFailures.js';

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

/** Async K (and auto, gates) with a reflection minibatch of b examples ('mb<b>'; the default is 3). */
function minibatchVariants(): Record<string, Variant> {
  const out: Record<string, Variant> = {};
  for (const b of [2, 4, 5, 6, 8]) {
    const options = { reflectionMinibatchSize: b };
    for (const k of [4, 8, 10, 12, 16]) {
      out[`async ${k} mb${b}`] = { schedule: { kind: 'async', inFlight: k }, options, about: `async ${k}, reflection minibatch ${b}` };
      out[`async ${k} gates mb${b}`] = { schedule: { kind: 'async', inFlight: k, speculate: 'rebase-gate' }, options, about: `async ${k} with gates evaluated ahead, reflection minibatch ${b}` };
    }
    out[`sequential mb${b}`] = { schedule: seq, options, about: `the sequential loop, reflection minibatch ${b}` };
    out[`auto mb${b}`] = { schedule: { kind: 'auto' }, options, about: `schedule 'auto', reflection minibatch ${b}` };
  }
  return out;
}

/** Async K with gates evaluated ahead and 'combined' capped at n records ('async <K> gates combined <n>'). */
function gatesCombinedVariants(): Record<string, Variant> {
  const out: Record<string, Variant> = {};
  for (const k of [8, 10, 12]) {
    for (const n of [4, 6]) out[`async ${k} gates combined ${n}`] = combined({ kind: 'async', inFlight: k, speculate: 'rebase-gate' }, { maxRecords: n }, `async ${k} with gates evaluated ahead, 'combined' capped at ${n} records`);
  }
  for (const k of [10, 12]) out[`async ${k} combined 4`] = combined({ kind: 'async', inFlight: k }, { maxRecords: 4 }, `async ${k}, 'combined' capped at 4 records`);
  return out;
}

/** Async 10 with gates and one of the launch order's other settings ('async 10 gates <setting>'). */
function launchOrderVariants(): Record<string, Variant> {
  const gated = { kind: 'async', inFlight: 10, speculate: 'rebase-gate' } as const;
  const settings: Record<string, Partial<Extract<Schedule, { kind: 'async' }>>> = {
    'wait ahead': { rebaseWait: 'ahead-in-flight' },
    'wait valsets': { rebaseWait: 'valsets-in-flight' },
    'rebase pool-best': { rebase: 'pool-best' },
    'rebase best-descendant': { rebase: 'best-descendant' },
    'gate whole': { rebaseGate: 'whole-minibatch' },
    'parents in-flight': { parentWeighting: 'in-flight' },
  };
  return Object.fromEntries(Object.entries(settings).map(([name, extra]) => [`async 10 gates ${name}`, { schedule: { ...gated, ...extra }, about: `async 10 with gates evaluated ahead, ${JSON.stringify(extra)}` }]));
}

/**
 * Round 3 (width3): schedule 'auto' with 'combined' only while few recent records fail
 * ('auto when <t>': combine while under a share t of the recent minibatches' records fail) and/or
 * with other proposals' failures chosen for feedback the prompt does not hold yet ('distinct').
 */
function adaptiveVariants(): Record<string, Variant> {
  const out: Record<string, Variant> = {};
  for (const n of [4, 6, 12]) {
    for (const t of [Infinity, 1, 0.9, 0.7, 0.5, 0.3]) {
      for (const distinct of [false, true]) {
        if (t === Infinity && !distinct) continue;
        const name = `auto combined ${n}${t <= 1 ? ` when ${t}` : ''}${distinct ? ' distinct' : ''}`;
        out[name] = combined({ kind: 'auto' }, { maxRecords: n, failingBelow: t, distinct }, `schedule 'auto', 'combined' capped at ${n} records${t <= 1 ? `, only while under ${t * 100}% of the recent minibatches' records fail` : ''}${distinct ? ", other proposals' failures only when their feedback adds a sentence" : ''}`);
      }
    }
  }
  for (const n of [5, 8]) out[`auto combined ${n} when 0.9 distinct`] = combined({ kind: 'auto' }, { maxRecords: n, failingBelow: 0.9, distinct: true }, `schedule 'auto', 'combined' capped at ${n} records, only while under 90% of the recent minibatches' records fail, other proposals' failures only when their feedback adds a sentence`);
  for (const e of [4, 16]) out[`auto combined 6 when 0.9 distinct evidence ${e}`] = combined({ kind: 'auto' }, { maxRecords: 6, failingBelow: 0.9, distinct: true, evidence: e }, `as 'auto combined 6 when 0.9 distinct', reading the ${e} most recent proposals' parents`);
  return out;
}

/** Async K with gates (a minibatch of b) reflecting with auto's adaptive 'combined' ('async <K> gates [mb<b>] auto-combined'). */
function autoCombinedVariants(): Record<string, Variant> {
  const out: Record<string, Variant> = {};
  for (const k of [8, 10, 12, 16]) {
    for (const b of [2, 3]) {
      const mb = b === 3 ? '' : ` mb${b}`;
      out[`async ${k} gates${mb} auto-combined`] = {
        schedule: { kind: 'async', inFlight: k, speculate: 'rebase-gate' },
        options: { reflectionStrategy: combinedReflection(AUTO_COMBINED_LIMITS), ...(b === 3 ? {} : { reflectionMinibatchSize: b }) },
        about: `async ${k} with gates evaluated ahead${b === 3 ? '' : `, reflection minibatch ${b}`}, reflecting with auto's 'combined' (AUTO_COMBINED_LIMITS)`,
      };
    }
  }
  return out;
}

/**
 * Round 4 (width4): several children per parent evaluation ('async <K>x<N>'), with gates evaluated
 * ahead ('gates') and auto's adaptive 'combined' ('auto-combined').
 */
function perParentVariants(): Record<string, Variant> {
  const out: Record<string, Variant> = {};
  for (const k of [4, 6, 8, 10, 12, 16]) {
    for (const n of [2, 3, 4]) {
      out[`async ${k}x${n}`] = { schedule: { kind: 'async', inFlight: k, perParent: n }, about: `async ${k} in flight, ${n} children per parent evaluation` };
      out[`async ${k}x${n} gates`] = { schedule: { kind: 'async', inFlight: k, perParent: n, speculate: 'rebase-gate' }, about: `async ${k} in flight, ${n} children per parent evaluation, gates evaluated ahead` };
      out[`async ${k}x${n} gates auto-combined`] = {
        schedule: { kind: 'async', inFlight: k, perParent: n, speculate: 'rebase-gate' },
        options: { reflectionStrategy: combinedReflection(AUTO_COMBINED_LIMITS) },
        about: `async ${k} in flight, ${n} children per parent evaluation, gates evaluated ahead, reflecting with auto's 'combined' (AUTO_COMBINED_LIMITS)`,
      };
    }
  }
  return out;
}

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
  // Round 2 (width2): the reflection minibatch (examples a reflection is shown), gates at K 8-12
  // with more seeds, 'combined' with a short cap under auto, and those together.
  ...minibatchVariants(),
  'async 10 gates': { schedule: { kind: 'async', inFlight: 10, speculate: 'rebase-gate' }, about: 'async 10 with gates evaluated ahead, places kept' },
  ...gatesCombinedVariants(),
  'async 10 gates race': { schedule: { kind: 'async', inFlight: 10, speculate: 'rebase-gate' }, options: { valsetPolicy: { kind: 'race', chunk: 10, margin: 0 } }, about: 'async 10 with gates evaluated ahead and the valset race (chunks of 10, margin 0)' },
  ...launchOrderVariants(),
  'auto combined 3': combined({ kind: 'auto' }, { maxRecords: 3 }, "schedule 'auto', 'combined' capped at 3 records"),
  'auto combined 4': combined({ kind: 'auto' }, { maxRecords: 4 }, "schedule 'auto', 'combined' capped at 4 records"),
  'auto combined 6': combined({ kind: 'auto' }, { maxRecords: 6 }, "schedule 'auto', 'combined' capped at 6 records"),
  'auto mb5 combined 6': { schedule: { kind: 'auto' }, options: { reflectionMinibatchSize: 5, reflectionStrategy: combinedReflection({ maxRecords: 6 }) }, about: "schedule 'auto', reflection minibatch 5, 'combined' capped at 6 records (the minibatch's 5 and one more)" },
  'auto mb5 combined 8': { schedule: { kind: 'auto' }, options: { reflectionMinibatchSize: 5, reflectionStrategy: combinedReflection({ maxRecords: 8 }) }, about: "schedule 'auto', reflection minibatch 5, 'combined' capped at 8 records" },
  ...adaptiveVariants(),
  ...autoCombinedVariants(),
  ...perParentVariants(),
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
      // Runs stored under other labels (auto with another phase table, scratch/phaseGrid-style runners) are shown too.
      const dir = new URL(`${task}/${configName(c)}/`, resultsDir(false, FOLDER));
      for (const file of existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : []) {
        const stored = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as StoredSetting;
        if (!settings.some((s) => s.label === stored.label)) settings.push(stored);
      }
      const p = panel(task, c, settings, seeds);
      if (p) printPanel(p);
      else console.log(`\n(${task} ${configName(c)}: no ${SEQUENTIAL} runs in bench/results/time-to-quality/ yet)`);
    }
  }
} else {
  throw new Error(`unknown command '${command}' (run | table | list)`);
}
void CONFIGURATIONS;
