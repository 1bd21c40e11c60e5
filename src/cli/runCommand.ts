// `gepa-actors run CONFIG.json`: a real optimization on an OpenAI-compatible endpoint, with the
// built-in chat task or the user's adapter module, metric calls here or on BullMQ workers. The
// config is validated and the datasets loaded before anything is written; the endpoint is
// checked before any paid work; then the run, its summary (or JSON), and report.html.
import { dirname, resolve } from 'node:path';
import { createChatAdapter } from '../adapters/chatAdapter.js';
import { checkEndpoint, type EndpointOptions } from '../lm/openaiLanguageModel.js';
import { disposeLocalModels } from '../lm/localLanguageModel.js';
import { configChatModel, configLanguageModel, isEndpointModel, isLocalModel, loadLocalModels } from './configModels.js';
import type { RefinerOptions } from '../adapters/anything/anythingOptions.js';
import { scheduleLabel } from '../runtimeModel/index.js';
import { amendPreparedRun } from '../run/preparedRun.js';
import { DEFAULT_QUEUE } from '../executors/metricCallJob.js';
import type { Adapter, Candidate } from '../gepa/core/adapter.js';
import type { OptimizeConfig } from '../config/optimizeConfig.js';
import { anythingRunParts } from '../run/anythingRun.js';
import { installStdioCapture } from '../adapters/anything/stdioCapture.js';
import { inSeedForm } from '../../machines/optimizeAnything.js';
import type { PreparedRun } from '../run/preparedRun.js';
import type { CliIo } from './cliIo.js';
import { EXIT_FAILURE, UsageError } from './exitCodes.js';
import { loadRunConfig, optimizerSettings, type LoadedRunConfig, type RunConfigOverrides } from './runConfig.js';
import { checkRunDir, resumeNotice } from './runDirCheck.js';
import { rerunLine, runReportInput, runSpending, serveFinishedRun, writeRunReport } from './runReport.js';
import { scheduleOptionText } from './scheduleOption.js';
import type { UiSettings } from './workbenchListen.js';
import type { RunInvocation } from '../storage/runInvocation.js';
import { prepareSession } from './runSession.js';
import { printOutcome } from './runSummary.js';
import { terminalSafe } from './terminalText.js';
import { errorMessage } from '../errors/errorMessage.js';

export interface RunOptions {
  resume: boolean;
  json: boolean;
  inspect: boolean;
  /** --budget, --seed, --run-dir, --schedule, --reflection-model, --seed-candidate: they take the place of the file's fields. */
  overrides?: RunConfigOverrides;
  /** The --seed-candidate file the override was read from (recorded in invocation.json). */
  seedCandidateFile?: string;
  /** --ui: serve the workbench beside the run. */
  ui?: UiSettings;
}

/** The flags that start this run again (invocation.json): the config and the overrides, without the run directory, --resume, --json or --ui. */
function runArgs(configPath: string, options: RunOptions): string[] {
  const o = options.overrides ?? {};
  return [
    configPath,
    ...(options.inspect ? ['--inspect'] : []),
    ...(o.maxMetricCalls !== undefined ? ['--budget', String(o.maxMetricCalls)] : []),
    ...(o.seed !== undefined ? ['--seed', String(o.seed)] : []),
    ...(o.schedule !== undefined ? ['--schedule', scheduleOptionText(o.schedule)] : []),
    ...(o.reflectionModel !== undefined ? ['--reflection-model', o.reflectionModel] : []),
    ...(options.seedCandidateFile !== undefined ? ['--seed-candidate', options.seedCandidateFile] : []),
  ];
}

function endpointFrom(io: CliIo): EndpointOptions {
  const baseURL = io.env.OPENAI_BASE_URL || undefined;
  const apiKey = io.env.OPENAI_API_KEY || undefined;
  return { ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) };
}

/** The OptimizeConfig a loaded CONFIG describes, with its models built on `endpoint`. */
export function buildRunConfig(loaded: LoadedRunConfig, endpoint: EndpointOptions): OptimizeConfig<unknown> {
  return buildRunParts(loaded, endpoint).config;
}

/** What the session prepares, and (an evaluator's run) what the prepared run needs beyond it. */
export interface RunParts {
  config: OptimizeConfig<unknown>;
  amend: (prepared: PreparedRun) => PreparedRun;
  /** An evaluator run from a string seed (or none): its result is printed with string candidates, as optimizeAnything() returns it. */
  stringCandidate?: boolean;
}

/** The config's refiner as optimizeAnything takes it: its model (a module's, a named one, or the reflection model) and its refinements. */
function configRefiner(refiner: NonNullable<LoadedRunConfig['file']['refiner']>, loaded: LoadedRunConfig, shared: Parameters<typeof configLanguageModel>[2]): RefinerOptions {
  if (refiner === true) return {};
  const { refinerModel, maxRefinements } = refiner;
  const refinerLm = refinerModel === undefined ? undefined : (loaded.moduleModels.refiner ?? configLanguageModel(refinerModel, loaded.path, shared));
  return { ...(maxRefinements !== undefined ? { maxRefinements } : {}), ...(refinerLm ? { refinerLm } : {}) };
}

/** The models the endpoint serves, which it is asked about before any work (local and module models are not its). */
function endpointModels(loaded: LoadedRunConfig): string[] {
  return configModelNames(loaded).filter(isEndpointModel);
}

/** Every model the config names: the chat task's, the reflection model, the refiner's. */
function configModelNames({ file, task }: LoadedRunConfig): string[] {
  const refiner = typeof file.refiner === 'object' ? file.refiner.refinerModel : undefined;
  return [...(task.kind === 'chat' ? [task.taskModel] : []), file.reflectionModel, ...(refiner !== undefined ? [refiner] : [])];
}

function buildRunParts(loaded: LoadedRunConfig, endpoint: EndpointOptions): RunParts {
  const { file, task } = loaded;
  const shared = {
    ...endpoint,
    ...(file.prices ? { prices: file.prices } : {}),
    ...(file.temperature !== undefined ? { temperature: file.temperature } : {}),
    ...(file.maxTokens !== undefined ? { maxTokens: file.maxTokens } : {}),
    ...(file.rpm !== undefined ? { rpm: file.rpm } : {}),
    ...(file.requestTimeoutMs !== undefined ? { timeoutMs: file.requestTimeoutMs } : {}),
    ...(file.maxRetries !== undefined ? { maxRetries: file.maxRetries } : {}),
    ...(file.retryMaxDelayMs !== undefined ? { retryMaxDelayMs: file.retryMaxDelayMs } : {}),
  };
  let reflectionLm;
  let adapter: Adapter<unknown> | undefined;
  try {
    if (task.kind === 'adapter') adapter = task.adapter;
    else if (task.kind === 'chat') adapter = createChatAdapter({ taskModel: configChatModel(task.taskModel, loaded.path, shared), metric: task.metric, component: task.component }) as Adapter<unknown>;
    reflectionLm = loaded.moduleModels.reflection ?? configLanguageModel(file.reflectionModel, loaded.path, shared);
  } catch (error) {
    // A missing key, a malformed OPENAI_BASE_URL, a missing or non-GGUF local model file:
    // fixable before the run, like a config error.
    throw new UsageError(errorMessage(error));
  }
  const optional = <K extends keyof typeof file>(key: K) => (file[key] !== undefined ? { [key]: file[key] } : {});
  const common = {
    ...optimizerSettings(file),
    reflectionLm,
    ...(loaded.runDir ? { runDir: loaded.runDir } : {}),
    ...(loaded.holdout ? { holdout: loaded.holdout } : {}),
    ...(loaded.stopWhen ? { stopWhen: loaded.stopWhen } : {}),
    ...(loaded.callbacks ? { callbacks: loaded.callbacks } : {}),
    // Like every path of the file, relative to it.
    ...(file.cacheDir !== undefined ? { cacheDir: resolve(dirname(loaded.path), file.cacheDir) } : {}),
  };
  // The models and the task live inside functions: what identifies them is checked on --resume.
  const identity = {
    reflectionLm: isEndpointModel(file.reflectionModel) ? `openai:${file.reflectionModel}` : file.reflectionModel,
    reflectionModel: file.reflectionModel,
    ...optional('prices'),
    ...optional('temperature'),
    ...optional('maxTokens'),
  };
  if (task.kind === 'evaluator' || task.kind === 'batchEvaluator') {
    // optimizeAnything's run, as the library puts it together (the options checked, the mode chosen).
    const parts = anythingRunParts<unknown>({
      ...common,
      ...(loaded.seed !== undefined ? { seedCandidate: loaded.seed } : { seedCandidate: undefined }),
      ...(task.kind === 'evaluator' ? { evaluator: task.evaluator } : { batchEvaluator: task.batchEvaluator }),
      ...optional('captureStdio'),
      ...(loaded.trainset ? { dataset: loaded.trainset } : {}),
      ...(loaded.valset ? { valset: loaded.valset } : {}),
      ...optional('objective'),
      ...optional('background'),
      ...(file.refiner !== undefined ? { refiner: configRefiner(file.refiner, loaded, shared) } : {}),
      // The objective and background join it in anythingRunParts, as for a library run.
      runIdentity: { ...identity, evaluator: task.spec, ...(typeof file.refiner === 'object' && file.refiner.refinerModel !== undefined ? { refinerModel: file.refiner.refinerModel } : {}) },
    });
    return { config: parts.config as OptimizeConfig<unknown>, amend: parts.amend, stringCandidate: parts.stringCandidate };
  }
  return {
    config: {
      ...common,
      seedCandidate: loaded.seed as Candidate,
      trainset: loaded.trainset ?? [],
      ...(loaded.valset ? { valset: loaded.valset } : {}),
      adapter: adapter as Adapter<unknown>,
      runIdentity: { ...identity, ...(task.kind === 'adapter' ? { adapter: task.spec } : { taskModel: task.taskModel, metric: task.metric, component: task.component }) },
    },
    amend: (prepared) => prepared,
  };
}

export async function runCommand(configArg: string, options: RunOptions, io: CliIo): Promise<number> {
  const loaded = await loadRunConfig(resolve(io.cwd, configArg), options.overrides);
  if (options.inspect && !loaded.runDir) throw new UsageError('--inspect writes inspect.jsonl into the run directory: set "runDir" in the config (or --run-dir)');
  const endpoint = endpointFrom(io);
  // Validated once (throws ConfigError naming the field), its inputs hashed once: the run
  // directory's check and the run itself take this prepared run.
  const parts = buildRunParts(loaded, endpoint);
  // Its title and the models' names are known once the session is prepared, before the run starts (when it is written).
  const invocation: RunInvocation = { version: 1, command: 'run', args: runArgs(loaded.path, options), cwd: io.cwd, title: '', models: { task: '', reflection: '' } };
  const session = prepareSession({ config: parts.config, io, inspect: options.inspect, invocation, ...(options.ui ? { ui: options.ui } : {}) });
  const prepared = parts.amend(session.prepared);
  const { settings } = prepared;
  invocation.models = session.models;
  const resumed = loaded.runDir ? await checkRunDir(loaded.runDir, options.resume, prepared) : undefined;

  // Before any paid work: is the endpoint there, and does it take the key? Do local models load?
  const { file, task } = loaded;
  const names = configModelNames(loaded);
  const models = endpointModels(loaded);
  let pingCostUsd = 0;
  try {
    await loadLocalModels(names.filter(isLocalModel), loaded.path);
    if (models.length > 0) {
      const check = await checkEndpoint({
        ...endpoint,
        model: models[0] as string,
        ...(file.prices ? { prices: file.prices } : {}),
        // The check is retried like every call of the run, under the config's retry settings.
        ...(file.maxRetries !== undefined ? { maxRetries: file.maxRetries } : {}),
        ...(file.retryMaxDelayMs !== undefined ? { retryMaxDelayMs: file.retryMaxDelayMs } : {}),
        onRetry: ({ attempt, maxAttempts, delayMs, reason }) =>
          io.stderr.write(`checking the endpoint: ${terminalSafe(reason)}; trying again in ${(delayMs / 1000).toFixed(1)} s (attempt ${attempt + 1} of ${maxAttempts})\n`),
      });
      pingCostUsd = check.costUsd ?? 0;
      const listed = check.models;
      for (const model of new Set(models)) {
        if (listed && listed.length > 0 && !listed.includes(model)) {
          io.stderr.write(`warning: ${check.baseURL} does not list model "${model}"; the run may fail on its first call\n`);
        }
      }
    }
  } catch (error) {
    io.stderr.write(`gepa-actors: ${terminalSafe(errorMessage(error))}\n`);
    return EXIT_FAILURE;
  }

  // The check's one-token ping (servers without /models) was paid: it is part of the run's cost.
  // A resumed run spends up to the budgets it was last given (its log says), shown as such.
  const run = amendPreparedRun(prepared, { ...(resumed ? { runDirectory: resumed } : {}), ...(pingCostUsd > 0 ? { preRunCostUsd: pingCostUsd } : {}) });
  const label = scheduleLabel(settings.schedule);
  const taskName = task.kind === 'chat' ? task.taskModel : `${task.kind} ${task.spec}`;
  const where = file.executor?.kind === 'bullmq' ? `, metric calls on BullMQ queue "${file.executor.queue ?? DEFAULT_QUEUE}"` : '';
  const heading = `GEPA run ${loaded.path}: ${taskName} (task), ${file.reflectionModel} (reflection), schedule ${label}, ${settings.workers} workers${where}`;
  invocation.title = `GEPA run: ${taskName} / ${file.reflectionModel}, ${label} on ${settings.workers} workers`;
  io.stderr.write(`${heading}\n`);
  if (resumed) io.stderr.write(`${resumeNotice(resumed)}\n`);
  let outcome;
  // captureStdio: console and the streams are patched for the run only (as optimizeAnything() does), restored however it ends.
  const releaseStdio = file.captureStdio === true ? installStdioCapture() : undefined;
  try {
    outcome = await session.start(run);
  } finally {
    releaseStdio?.();
    // Loaded weights hold memory and threads: free them whether the run finished or failed.
    await disposeLocalModels();
  }
  const { result } = outcome;
  const details = { title: invocation.title };
  const reportPath = loaded.runDir ? await writeRunReport(loaded.runDir, outcome, details) : undefined;
  const failover = rerunLine(loaded.runDir, outcome);
  const code = printOutcome(io, options.json, {
    heading,
    result,
    ...(failover ? { extra: [`failover: ${failover}`] } : {}),
    ...(run.config.maxMetricCalls !== undefined ? { budget: run.config.maxMetricCalls } : {}),
    ...(reportPath ? { reportPath } : {}),
    ...runSpending(loaded.runDir, outcome),
    ...(outcome.failure ? { failure: outcome.failure } : {}),
    ...(loaded.runDir ? { runDir: loaded.runDir } : {}),
    ...(parts.stringCandidate ? { jsonResult: inSeedForm(result, true) } : {}),
  });
  if (outcome.workbench) await serveFinishedRun(io, outcome, runReportInput(loaded.runDir, outcome, details));
  return code;
}
