// `gepa-actors demo`: the built-in offline demo task (simulated task and reflection models with
// small realistic latencies, so the live display has something to show), then a summary with
// the held-out test score of the best candidate, and report.html in the run directory (--run-dir,
// else a fresh runs/demo-<date>-<time>/; none with --no-report), its path printed last.
import { resolve } from 'node:path';
import { createDemoTask, type DemoExample } from '../demo/demoTask.js';
import { scheduleLabel } from '../runtimeModel/index.js';
import { amendPreparedRun } from '../run/preparedRun.js';
import type { Adapter, Candidate } from '../gepa/core/adapter.js';
import type { OptimizeConfig } from '../config/optimizeConfig.js';
import type { Schedule } from '../settingValues.js';
import type { CliIo } from './cliIo.js';
import { UsageError } from './exitCodes.js';
import { claimFreshRunDir } from './freshRunDir.js';
import { checkRunDir, resumeNotice } from './runDirCheck.js';
import { runReportInput, runSpending, serveFinishedRun, writeRunReport } from './runReport.js';
import { scheduleOptionText } from './scheduleOption.js';
import type { UiSettings } from './workbenchListen.js';
import type { RunInvocation } from '../storage/runInvocation.js';
import { readSeedCandidate } from './seedCandidateFile.js';
import { prepareSession } from './runSession.js';
import { printOutcome } from './runSummary.js';

export interface DemoOptions {
  schedule: Schedule;
  workers: number;
  /** maxMetricCalls. */
  budget: number;
  seed: number;
  json: boolean;
  inspect: boolean;
  runDir?: string;
  resume: boolean;
  /** Write report.html (into a fresh run directory when no runDir is given). */
  report: boolean;
  /** Simulated mean latencies; 0 = instant. */
  metricCallMs: number;
  reflectionMs: number;
  /** --seed-candidate: a JSON file of named texts to start from instead of the demo's seed prompt (a branch's). */
  seedCandidate?: string;
  /** --ui: serve the workbench beside the run. */
  ui?: UiSettings;
}

export const DEMO_DEFAULTS = {
  schedule: { kind: 'batched', parents: 2, perParent: 2 } as Schedule,
  workers: 8,
  budget: 600,
  seed: 0,
  metricCallMs: 20,
  reflectionMs: 100,
};

/** Mean score of `candidate` on `examples`, one call at a time (the scoring adapter is instant). */
export async function meanScore<Example>(adapter: Adapter<Example>, candidate: Candidate, examples: readonly Example[]): Promise<number> {
  const ctx = { captureTraces: false, signal: new AbortController().signal };
  let sum = 0;
  for (const example of examples) sum += (await adapter.evaluate(candidate, example, ctx)).score;
  return examples.length > 0 ? sum / examples.length : 0;
}

/** Where the demo's run directory is: the one given, a fresh one for the report, or none. */
async function demoRunDir(options: DemoOptions, io: CliIo): Promise<string | undefined> {
  if (options.runDir !== undefined) return resolve(io.cwd, options.runDir);
  if (!options.report) {
    if (options.inspect) throw new UsageError('--inspect writes inspect.jsonl into the run directory: add --run-dir DIR, or drop --no-report');
    return undefined;
  }
  return claimFreshRunDir(resolve(io.cwd, 'runs'), 'demo', io.today ? io.today() : new Date());
}

/** The flags that start this demo again (invocation.json): everything but the run directory, --resume, --json and --ui. */
function demoArgs(options: DemoOptions, seedFile: string | undefined): string[] {
  return [
    '--schedule', scheduleOptionText(options.schedule),
    '--workers', String(options.workers),
    '--budget', String(options.budget),
    '--seed', String(options.seed),
    '--metric-call-ms', String(options.metricCallMs),
    '--reflection-ms', String(options.reflectionMs),
    ...(options.inspect ? ['--inspect'] : []),
    ...(options.report ? [] : ['--no-report']),
    ...(seedFile !== undefined ? ['--seed-candidate', seedFile] : []),
  ];
}

export async function demoCommand(options: DemoOptions, io: CliIo): Promise<number> {
  // Refused before anything is created.
  if (options.resume && options.runDir === undefined) throw new UsageError('--resume continues the run in a run directory: add --run-dir DIR');
  const task = createDemoTask({ seed: options.seed, metricCallMs: options.metricCallMs, reflectionMs: options.reflectionMs });
  const seedFile = options.seedCandidate === undefined ? undefined : resolve(io.cwd, options.seedCandidate);
  const seedCandidate = seedFile === undefined ? task.seedCandidate : await readSeedCandidate(seedFile, Object.keys(task.seedCandidate));
  const base: OptimizeConfig<DemoExample> = {
    seedCandidate,
    trainset: task.trainset,
    valset: task.valset,
    adapter: task.adapter,
    reflectionLm: task.reflectionLm,
    maxMetricCalls: options.budget,
    schedule: options.schedule,
    workers: options.workers,
    seed: options.seed,
    // The simulated models are a function of the seed, which the config records already.
    runIdentity: { reflectionLm: 'demo', adapter: 'demo' },
  };
  const given = options.runDir === undefined ? undefined : resolve(io.cwd, options.runDir);
  const models = { task: 'demo task model (simulated)', reflection: 'demo reflection model (simulated)' };
  // Its title is known once the schedule is resolved, before the run starts (when it is written).
  const invocation: RunInvocation = { version: 1, command: 'demo', args: demoArgs(options, seedFile), cwd: io.cwd, title: '', models };
  // Validated once: flags that parse but cannot run (a budget below the valset size) fail here,
  // before any write; the run directory's check and the run itself take this prepared run.
  const session = prepareSession({
    config: given === undefined ? base : { ...base, runDir: given },
    io,
    inspect: options.inspect,
    models,
    ...(options.ui ? { ui: options.ui } : {}),
    invocation,
  });
  const label = scheduleLabel(session.prepared.settings.schedule);
  invocation.title = `GEPA demo: ${label} on ${options.workers} workers`;
  const resumed = given !== undefined ? await checkRunDir(given, options.resume, session.prepared) : undefined;
  const runDir = await demoRunDir(options, io);
  // A resumed run spends up to the budgets it was last given; a fresh directory for the report is chosen only now.
  const run = amendPreparedRun(session.prepared, { ...(resumed ? { runDirectory: resumed } : {}), ...(runDir !== undefined && given === undefined ? { runDir } : {}) });
  const heading = `GEPA demo (seed ${options.seed}): schedule ${label}, ${options.workers} workers, budget ${options.budget} metric calls`;
  io.stderr.write(`${heading}\n`);
  if (resumed) io.stderr.write(`${resumeNotice(resumed)}\n`);

  const outcome = await session.start(run);
  const { result } = outcome;

  // The held-out testset is scored without simulated latency: answers depend only on the prompt.
  const scorer = createDemoTask({ seed: options.seed }).adapter;
  const testset: readonly DemoExample[] = task.testset;
  const [bestTest, seedTest] = await Promise.all([meanScore(scorer, result.bestCandidate, testset), meanScore(scorer, seedCandidate, testset)]);
  const testLine = `held-out test score ${bestTest.toFixed(3)} (seed ${seedTest.toFixed(3)}) on ${testset.length} examples`;

  const details = {
    title: invocation.title,
    facts: [{ label: 'held-out test score', value: bestTest.toFixed(3), sub: `seed ${seedTest.toFixed(3)}, ${testset.length} examples` }],
  };
  const reportPath = runDir && options.report ? await writeRunReport(runDir, outcome, details) : undefined;

  const code = printOutcome(io, options.json, { heading, result, budget: run.config.maxMetricCalls ?? options.budget, extra: [testLine], ...(reportPath ? { reportPath } : {}), ...runSpending(runDir, outcome), ...(outcome.failure ? { failure: outcome.failure } : {}), ...(given !== undefined ? { runDir: given } : {}) });
  if (outcome.workbench) await serveFinishedRun(io, outcome, runReportInput(runDir, outcome, details));
  return code;
}
