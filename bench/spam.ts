// GEPA on a real task with a real model: spam or ham on the SpamAssassin corpus (bench/spamTask.ts),
// task model and reflection model both Gemma 3 270M (a GGUF run in this process by our local
// backend), in real time on this machine. Runs are stored per setting under
// bench/results/spam-<setting>.json after every seed, so a long batch can be stopped and resumed (--from).
//
//   GEPA_GGUF=.models/gemma-3-270m-q4_k_m.gguf npx tsx bench/spam.ts run single 2x2 "async 4" [--seeds 6] [--from 0]
//   npx tsx bench/spam.ts throughput             tokens/s of the engine at 1, 2 and 4 sequences
//   npx tsx bench/spam.ts table                  the tables bench/README.md quotes
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { optimize } from '../src/index.js';
import { createLocalChatModel, createLocalLanguageModel, disposeLocalModels, type LocalModelOptions } from '../src/lm/localLanguageModel.js';
import type { Candidate } from '../src/gepa/core/adapter.js';
import type { LanguageModel } from '../src/gepa/core/languageModel.js';
import type { Schedule } from '../src/settingValues.js';
import { benchArgs } from './cliArgs.js';
import { mean, standardError } from './table.js';
import { createSpamAdapter, SPAM_COMPONENT, SPAM_SEED_CANDIDATE, SPAM_WORKLOAD, spamModelOptions, spamModelPath, spamSplits, type SpamExample, type SpamTaskModel } from './spamTask.js';

const { flag, positional } = benchArgs();
const [command = 'table', ...names] = positional;
// Trials go elsewhere (SPAM_RESULTS=<dir>/): only full batches belong in bench/results.
const dir = process.env.SPAM_RESULTS ? new URL(`file://${process.env.SPAM_RESULTS}`) : new URL('./results/', import.meta.url);
const modelPath = spamModelPath();
// --budget is for trials (with SPAM_RESULTS): stored batches use the workload's own.
const workload = { ...SPAM_WORKLOAD, budget: Number(flag('--budget', String(SPAM_WORKLOAD.budget))) };

const SETTINGS: Record<string, Schedule> = {
  single: { kind: 'batched', parents: 1, perParent: 1 },
  '2x2': { kind: 'batched', parents: 2, perParent: 2 },
  '4x1': { kind: 'batched', parents: 4, perParent: 1 },
  'async 4': { kind: 'async', inFlight: 4 },
};

interface Tokens {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}
const noTokens = (): Tokens => ({ calls: 0, promptTokens: 0, completionTokens: 0 });
const count = (t: Tokens, usage?: { promptTokens: number; completionTokens: number }) => {
  t.calls++;
  t.promptTokens += usage?.promptTokens ?? 0;
  t.completionTokens += usage?.completionTokens ?? 0;
};

interface SpamRun {
  setting: string;
  seed: number;
  wallClockMs: number;
  metricCalls: number;
  reflectionCalls: number;
  seedValScore: number;
  bestValScore: number;
  testScore: number;
  candidates: number;
  accepted: number;
  stopReason: string;
  taskTokens: Tokens;
  reflectionTokens: Tokens;
  bestCandidate: Candidate;
  /** Every reflection reply, cut to 400 characters: what the reflection model proposed. */
  proposals: string[];
}

const sharedModel = (options: Partial<LocalModelOptions>) => spamModelOptions(modelPath, options);

// The test score is a fact of the prompt (greedy decoding), so it is computed once per prompt.
const testScores = new Map<string, number>();
async function testScore(candidate: Candidate, testset: readonly SpamExample[]): Promise<number> {
  const key = candidate[SPAM_COMPONENT] as string;
  const known = testScores.get(key);
  if (known !== undefined) return known;
  const adapter = createSpamAdapter(createLocalChatModel(sharedModel(workload.task)));
  const signal = new AbortController().signal;
  let sum = 0;
  for (const e of testset) sum += (await adapter.evaluate(candidate, e, { captureTraces: false, signal })).score;
  const score = sum / testset.length;
  testScores.set(key, score);
  return score;
}

async function spamRun(setting: string, seed: number): Promise<SpamRun> {
  const schedule = SETTINGS[setting];
  if (!schedule) throw new Error(`unknown setting '${setting}' (known: ${Object.keys(SETTINGS).join(', ')})`);
  const { trainset, valset, testset } = spamSplits(seed, workload.sizes);
  const taskTokens = noTokens();
  const reflectionTokens = noTokens();
  const proposals: string[] = [];
  const chat = createLocalChatModel(sharedModel(workload.task));
  const taskModel: SpamTaskModel = async (messages, ctx) => {
    const reply = await chat(messages, ctx);
    count(taskTokens, reply.usage);
    return reply;
  };
  const reflect = createLocalLanguageModel(sharedModel({ ...workload.reflection, seed }));
  const reflectionLm: LanguageModel = async (prompt, ctx) => {
    const reply = await reflect(prompt, ctx);
    count(reflectionTokens, reply.usage);
    proposals.push(reply.text.slice(0, 400));
    return reply;
  };
  const result = await optimize({
    seedCandidate: SPAM_SEED_CANDIDATE,
    trainset,
    valset,
    adapter: createSpamAdapter(taskModel),
    reflectionLm,
    schedule,
    workers: workload.workers,
    maxMetricCalls: workload.budget,
    reflectionMinibatchSize: workload.minibatch,
    seed,
    telemetry: false,
  });
  if (result.error) throw new Error(`run ${setting} seed ${seed} failed: ${result.error}`);
  return {
    setting,
    seed,
    wallClockMs: result.elapsedMs,
    metricCalls: result.metricCalls,
    reflectionCalls: result.reflectionCalls,
    seedValScore: result.valScores[0] ?? 0,
    bestValScore: result.bestScore,
    testScore: await testScore(result.bestCandidate, testset),
    candidates: result.candidates.length,
    accepted: result.proposals.filter((p) => p.outcome === 'accepted').length,
    stopReason: result.stopReason,
    taskTokens,
    reflectionTokens,
    bestCandidate: result.bestCandidate,
    proposals,
  };
}

const fileOf = (name: string) => new URL(`${name.startsWith('real-') ? '' : 'spam-'}${name.replace(/\s+/g, '-')}.json`, dir);

function stored<T>(name: string): T[] {
  const file = fileOf(name);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { runs: T[] }).runs : [];
}

function store<T extends { seed: number }>(name: string, runs: T[]): void {
  mkdirSync(dir, { recursive: true });
  // Seeds already stored stay, unless run again.
  const fresh = new Set(runs.map((r) => r.seed));
  const all = [...stored<T>(name).filter((r) => !fresh.has(r.seed)), ...runs].sort((a, b) => a.seed - b.seed);
  writeFileSync(fileOf(name), `${JSON.stringify({ name, modelPath: modelPath.split('/').pop(), workload: workload, runs: all }, null, 1)}\n`);
}

async function run(): Promise<void> {
  const seeds = Number(flag('--seeds', '6'));
  const from = Number(flag('--from', '0'));
  // Seeds outside, settings inside: a batch cut short still pairs every setting on the same seeds.
  for (let seed = from; seed < from + seeds; seed++) {
    for (const setting of names) {
      const r = await spamRun(setting, seed);
      store(setting, [r]);
      process.stderr.write(
        `  ${setting} seed ${seed}: val ${r.seedValScore.toFixed(3)} -> ${r.bestValScore.toFixed(3)}, test ${r.testScore.toFixed(3)}, ` +
          `${r.metricCalls} calls, ${r.reflectionCalls} reflections, ${r.accepted} accepted, ${(r.wallClockMs / 1000).toFixed(0)} s\n`,
      );
    }
  }
}

interface Throughput {
  seed: number;
  sequences: number;
  calls: number;
  wallMs: number;
  promptTokens: number;
  completionTokens: number;
}

/** The engine alone: 16 reflection-sized generations, all in flight, at 1, 2 and 4 sequences. */
async function throughput(): Promise<void> {
  const runs: Throughput[] = [];
  const { trainset } = spamSplits(0, workload.sizes);
  for (const sequences of [1, 2, 4]) {
    const lm = createLocalLanguageModel(sharedModel({ ...workload.reflection, maxTokens: 48, sequences }));
    await lm.load();
    const start = performance.now();
    const replies = await Promise.all(trainset.slice(0, 16).map((e, i) => lm(`${e.text}\n\nA one-line summary of this e-mail (${i}):`)));
    const wallMs = performance.now() - start;
    const sum = (f: (u: { promptTokens: number; completionTokens: number }) => number) => replies.reduce((a, r) => a + (r.usage ? f(r.usage) : 0), 0);
    runs.push({ seed: sequences, sequences, calls: replies.length, wallMs, promptTokens: sum((u) => u.promptTokens), completionTokens: sum((u) => u.completionTokens) });
    process.stderr.write(`  ${sequences} sequences: ${(sum((u) => u.completionTokens) / wallMs * 1000).toFixed(1)} completion tokens/s\n`);
    await disposeLocalModels();
  }
  store('real-engine-throughput', runs);
}

const pm = (xs: readonly number[], d = 3) => (xs.length === 0 ? '-' : `${mean(xs).toFixed(d)} ± ${standardError(xs).toFixed(d)}`);

function table(): void {
  const w = workload;
  console.log(`\n## Spam or ham (SpamAssassin), Gemma 3 270M as task and reflection model; budget ${w.budget} metric calls, train ${w.sizes.trainSize}, val ${w.sizes.valSize}, test ${w.sizes.testSize}, ${w.workers} workers (mean ± standard error over seeds)\n`);
  // The seed prompt's figures come from the runs: each scores it on its valset first, and a run
  // that kept it as its best scored it on the (fixed) testset.
  const all = Object.keys(SETTINGS).flatMap((setting) => stored<SpamRun>(setting));
  const seedVal = new Map(all.map((r) => [r.seed, r.seedValScore]));
  const seedTest = all.find((r) => r.bestCandidate[SPAM_COMPONENT] === SPAM_SEED_CANDIDATE[SPAM_COMPONENT])?.testScore;
  if (all.length > 0) console.log(`Seed prompt: val ${pm([...seedVal.values()])} over ${seedVal.size} seeds, test ${seedTest?.toFixed(3) ?? '-'} (one fixed testset).\n`);
  console.log('| setting | seeds | seed val | best val | test | wall s | metric calls | reflections | accepted | task tokens in / out per call | reflection tokens in / out per call |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const setting of Object.keys(SETTINGS)) {
    const runs = stored<SpamRun>(setting);
    if (runs.length === 0) continue;
    const per = (t: (r: SpamRun) => Tokens) => {
      const calls = runs.reduce((a, r) => a + t(r).calls, 0);
      return `${(runs.reduce((a, r) => a + t(r).promptTokens, 0) / calls).toFixed(0)} / ${(runs.reduce((a, r) => a + t(r).completionTokens, 0) / calls).toFixed(1)}`;
    };
    console.log(
      `| ${setting} | ${runs.length} | ${pm(runs.map((r) => r.seedValScore))} | ${pm(runs.map((r) => r.bestValScore))} | ${pm(runs.map((r) => r.testScore))} | ${pm(runs.map((r) => r.wallClockMs / 1000), 0)} | ${pm(runs.map((r) => r.metricCalls), 0)} | ${pm(runs.map((r) => r.reflectionCalls), 1)} | ${pm(runs.map((r) => r.accepted), 1)} | ${per((r) => r.taskTokens)} | ${per((r) => r.reflectionTokens)} |`,
    );
  }
  // gepa 0.1.4 itself through the bridge (bench/reference.ts run single 2x2 --task spam), same models, splits and budget.
  const referenceDir = new URL('./results/reference/spam/', import.meta.url);
  for (const shape of ['single', '2x2']) {
    const file = new URL(`reference-${shape}.json`, referenceDir);
    if (!existsSync(file)) continue;
    const runs = (JSON.parse(readFileSync(file, 'utf8')) as { runs: Array<{ metricCalls: number; bestValScore: number; testScore: number; candidates: number }> }).runs;
    console.log(
      `| gepa 0.1.4 ${shape} | ${runs.length} | - | ${pm(runs.map((r) => r.bestValScore))} | ${pm(runs.map((r) => r.testScore))} | - | ${pm(runs.map((r) => r.metricCalls), 0)} | - | ${pm(runs.map((r) => r.candidates - 1), 1)} | - | - |`,
    );
  }
  const tp = stored<Throughput>('real-engine-throughput');
  if (tp.length > 0) {
    console.log('\n| sequences | calls in flight | completion tokens/s | prompt + completion tokens/s | wall s |');
    console.log('|---:|---:|---:|---:|---:|');
    for (const t of tp) console.log(`| ${t.sequences} | ${t.calls} | ${((t.completionTokens / t.wallMs) * 1000).toFixed(1)} | ${(((t.promptTokens + t.completionTokens) / t.wallMs) * 1000).toFixed(0)} | ${(t.wallMs / 1000).toFixed(1)} |`);
  }
}

try {
  if (command === 'run') await run();
  else if (command === 'throughput') await throughput();
  else table();
} finally {
  await disposeLocalModels();
}
