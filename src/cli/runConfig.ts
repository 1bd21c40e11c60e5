// The `run` command's CONFIG.json: its zod schema (every error names its field), the checks
// that span fields (a stop condition; a dollar budget needs priced models; the chat task or the
// user's own adapter), and loading: paths (datasets, runDir, adapter) are relative to the CONFIG
// file; datasets are JSONL, {input, answer} rows for the chat task, any JSON for an adapter.
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { loadJsonlDataset, type ChatMetric } from '../adapters/chatAdapter.js';
import { hasPrice, priceOverridesSchema } from '../lm/priceTable.js';
import { settingsFields } from '../config/runSettings.js';
import { loadAdapter, loadEvaluator, loadModuleExport, parseAdapterSpec } from '../worker/loadAdapter.js';
import type { LanguageModel } from '../gepa/core/languageModel.js';
import type { Stopper } from '../gepa/strategies/stoppers.js';
import type { GepaCallbacks } from '../gepa/core/callbacks.js';
import { readStoppers } from './configStoppers.js';
import type { BatchEvaluator, Evaluator } from '../adapters/anything/anythingOptions.js';
import type { Adapter, Candidate } from '../gepa/core/adapter.js';
import type { Schedule } from '../settingValues.js';
import { STRING_COMPONENT } from '../adapters/anything/anythingOptions.js';
import { closestName } from '../config/closestName.js';
import { oneOf } from '../config/allowedValues.js';
import { UsageError } from './exitCodes.js';
import { configModelName, isModuleModel, loadModuleModel } from './configModels.js';
import { errorMessage } from '../errors/errorMessage.js';

const positiveInt = z.number().int().positive();

/**
 * optimize()'s own fields, checked by the very schema optimize() uses, so a new library option is
 * a config field at once. Left out: the datasets (paths here, below), preRunCostUsd (the
 * endpoint check's cost, which this command sets itself) and stopWhen (functions: the config names
 * the built-ins, configStoppers.ts).
 */
const optimizerFields = z.object(settingsFields).omit({ trainset: true, valset: true, holdout: true, preRunCostUsd: true, stopWhen: true }).shape;
export type OptimizerField = keyof typeof optimizerFields;
export const OPTIMIZER_FIELDS = Object.keys(optimizerFields) as OptimizerField[];

export const CHAT_METRICS = ['exact-match', 'contains-answer'] as const satisfies readonly ChatMetric[];

export const runConfigSchema = z
  .object({
    ...optimizerFields,
    /**
     * Named texts (the chat task, an adapter, or an evaluator); with an evaluator also one text,
     * a string (candidates are then strings), or absent: seedless (`objective` required).
     */
    seedCandidate: z.union([optimizerFields.seedCandidate, z.string()]).optional(),
    /** With an evaluator: the seed is the text of this file (relative to the config). */
    seedFile: z.string().min(1).optional(),
    /** The examples each metric call runs on (the chat task and an adapter). */
    trainset: z.string().min(1).optional(),
    valset: z.string().min(1).optional(),
    /** The held-out selection set (JSONL, rows as the valset's): the front's best are scored on it at the end, and the best there is the result's. */
    holdout: z.string().min(1).optional(),
    /** optimizeAnything's evaluator: `PATH[#EXPORT]`, an ES module relative to the config (export default `evaluate`). */
    evaluator: z.string().min(1).optional(),
    /** optimizeAnything's batchEvaluator, instead of `evaluator`: `PATH[#EXPORT]` (default export `evaluateBatch`), one call per minibatch or valset slice. */
    batchEvaluator: z.string().min(1).optional(),
    /** With an evaluator: what it prints to stdout and stderr during a call joins that example's side information. */
    captureStdio: z.boolean().optional(),
    /** With an evaluator: the tasks or training examples (JSONL); absent, single-task search. */
    dataset: z.string().min(1).optional(),
    /** With an evaluator: what the artifact is for, and what to know about the domain (in the reflection prompt). */
    objective: z.string().min(1).optional(),
    background: z.string().min(1).optional(),
    /** With an evaluator: gepa's refiner; `true` for its defaults, `refinerModel` (a model as reflectionModel names one; default the reflection model). */
    refiner: z.union([z.literal(true), z.object({ maxRefinements: positiveInt.optional(), refinerModel: z.string().min(1).optional() }).strict()]).optional(),
    /** The built-in stoppers by name (configStoppers.ts): `[{ "scoreThreshold": 0.9 }, { "timeout": "10m" }, ...]`. */
    stopWhen: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional(),
    /** gepa's callbacks: `PATH[#EXPORT]`, an ES module relative to the config exporting an object of callbacks or a list of them (default `callbacks`). */
    callbacks: z.string().min(1).optional(),
    /** The user's adapter: `PATH[#EXPORT]`, an ES module relative to the config (the worker's loader). */
    adapter: z.string().min(1).optional(),
    /** The chat task (without `adapter`): the model that answers, and how its replies are scored. */
    taskModel: z.string().min(1).optional(),
    metric: oneOf(CHAT_METRICS).optional(),
    /** The seedCandidate component used as the task model's system prompt. */
    component: z.string().min(1).optional(),
    /** A model on the endpoint, `local:<path to a .gguf>`, or `./reflect.mjs#reflect`: your own model in an ES module (configModels.ts). */
    reflectionModel: z.string().min(1),
    prices: priceOverridesSchema.optional(),
    /** Sent to both models only when set (reasoning models reject anything but their default). */
    temperature: z.number().min(0).max(2).optional(),
    /** Per-call completion cap; also makes dollar reservations a hard worst case. */
    maxTokens: positiveInt.optional(),
    /** Client-side requests per minute, per model. */
    rpm: positiveInt.optional(),
    /** Per HTTP attempt, real milliseconds (default 120,000). */
    requestTimeoutMs: positiveInt.optional(),
    /** Retries after a call's first attempt (default 6): at most maxRetries + 1 attempts. */
    maxRetries: z.number().int().nonnegative().max(100).optional(),
    /** The longest wait between attempts, a server's Retry-After included (default 60,000). */
    retryMaxDelayMs: positiveInt.optional(),
  })
  .strict();

export type RunConfigFile = z.infer<typeof runConfigSchema>;

/** What runs each example: the built-in chat task, the user's adapter module, or the user's optimizeAnything evaluator. */
export type RunTask =
  | { kind: 'chat'; taskModel: string; metric: ChatMetric; component: string }
  | { kind: 'adapter'; spec: string; adapter: Adapter<unknown> }
  | { kind: 'evaluator'; spec: string; evaluator: Evaluator<string | Candidate, unknown> }
  | { kind: 'batchEvaluator'; spec: string; batchEvaluator: BatchEvaluator<string | Candidate, unknown> };

/** The config runs optimizeAnything: it names an evaluator module, one example or many per call. */
export const namesEvaluator = (file: Pick<RunConfigFile, 'evaluator' | 'batchEvaluator'>): boolean => file.evaluator !== undefined || file.batchEvaluator !== undefined;

export interface LoadedRunConfig {
  file: RunConfigFile;
  path: string;
  task: RunTask;
  /** Chat rows for the chat task, the JSON of each line for an adapter or an evaluator's dataset (absent: single-task search). */
  trainset?: unknown[];
  valset?: unknown[];
  holdout?: unknown[];
  /** The seed: named texts, or one text (an evaluator's `seedCandidate` string or `seedFile`); absent: seedless. */
  seed?: string | Candidate;
  /** Absolute, when the config (or --run-dir) has one. */
  runDir?: string;
  /** The models the config names as modules, loaded: the reflection model's and the refiner's. */
  moduleModels: { reflection?: LanguageModel; refiner?: LanguageModel };
  /** The stoppers stopWhen names. */
  stopWhen?: Stopper[];
  /** The callbacks module's export. */
  callbacks?: Array<Partial<GepaCallbacks>>;
}

/** Command-line flags that take the place of the file's fields (`--budget`, `--seed`, `--run-dir`, `--schedule`, `--reflection-model`, `--seed-candidate`). */
export interface RunConfigOverrides {
  maxMetricCalls?: number;
  seed?: number;
  /** Absolute (a flag's path is relative to where the command runs, not to the config). */
  runDir?: string;
  schedule?: Schedule;
  reflectionModel?: string;
  /** Named texts (or, for an evaluator with a string seed, the text): a branch starts from one of its origin's candidates. */
  seedCandidate?: Candidate | string;
}

/** optimize()'s own fields of a config, as optimize() takes them (the loader resolves runDir). */
export function optimizerSettings(file: RunConfigFile): Pick<RunConfigFile, OptimizerField> {
  const given = OPTIMIZER_FIELDS.flatMap((key) => (file[key] === undefined ? [] : [[key, file[key]] as const]));
  return Object.fromEntries(given) as Pick<RunConfigFile, OptimizerField>;
}

const STOP_FIELDS = ['maxMetricCalls', 'maxCostUsd', 'timeoutMs', 'targetScore', 'maxStepsWithoutImprovement', 'stopWhen'] as const;

/** The schemas a value at this schema may match: through optional, nullable, default and unions. */
function alternatives(schema: z.ZodType): z.ZodType[] {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault) return alternatives(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodUnion) return (schema.options as readonly z.ZodType[]).flatMap(alternatives);
  return [schema];
}

/** The field names an object at `path` of the config may have (for "did you mean"). */
function fieldsAt(path: readonly PropertyKey[]): string[] {
  let schemas: z.ZodType[] = [runConfigSchema];
  for (const key of path) {
    schemas = schemas.flatMap(alternatives).flatMap((s) => (s instanceof z.ZodObject && typeof key === 'string' && key in s.shape ? [s.shape[key] as z.ZodType] : []));
  }
  return [...new Set(schemas.flatMap(alternatives).flatMap((s) => (s instanceof z.ZodObject ? Object.keys(s.shape) : [])))];
}

/** One line per problem, each starting with the field's path; unknown fields named one by one. */
export function configIssues(error: z.ZodError): string[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const known = fieldsAt(issue.path);
      return issue.keys.map((key) => {
        const near = closestName(key, known);
        return `${[...issue.path, key].join('.')}: unknown field (${near ? `did you mean "${near}"?` : 'check its spelling'})`;
      });
    }
    return [`${issue.path.length > 0 ? issue.path.join('.') : 'config'}: ${issue.message}`];
  });
}

const seedKeys = (file: RunConfigFile): string[] => (typeof file.seedCandidate === 'object' ? Object.keys(file.seedCandidate) : []);

const chatComponent = (file: RunConfigFile): string => {
  const keys = seedKeys(file);
  return file.component ?? (keys.length === 1 ? (keys[0] as string) : 'system_prompt');
};

/** Problems no single field shows; each names the field to fix. */
export function crossFieldProblems(file: RunConfigFile): string[] {
  const problems: string[] = [];
  if (STOP_FIELDS.every((f) => file[f] === undefined)) {
    problems.push(`maxMetricCalls: at least one stop condition is required (${STOP_FIELDS.join(', ')})`);
  }
  if (namesEvaluator(file)) problems.push(...evaluatorProblems(file));
  else problems.push(...examplesProblems(file));
  if (namesEvaluator(file)) {
    // evaluatorProblems has refused the chat task's fields and the bullmq executor.
  } else if (file.adapter !== undefined) {
    for (const field of ['taskModel', 'metric', 'component'] as const) {
      if (file[field] !== undefined) problems.push(`${field}: not used with "adapter" (the adapter runs and scores each example); remove it`);
    }
  } else {
    if (file.taskModel === undefined) problems.push('taskModel: required (the model that answers each example), unless the config names your own "adapter"');
    if (file.metric === undefined) problems.push(`metric: required (${CHAT_METRICS.join(' or ')}), unless the config names your own "adapter"`);
    if (file.executor?.kind === 'bullmq') {
      problems.push('executor: the bullmq executor needs "adapter": a worker loads the adapter module by its path (gepa-actors worker --adapter)');
    }
  }
  if (file.stopWhen !== undefined) {
    const read = readStoppers(file.stopWhen, '.');
    if ('problems' in read) problems.push(...read.problems);
  }
  if (file.maxCostUsd !== undefined) {
    for (const field of ['taskModel', 'reflectionModel'] as const) {
      const model = file[field];
      if (model !== undefined && isModuleModel(model)) {
        problems.push(`maxCostUsd: ${field} "${model}" is your own model, whose calls have no known price, so maxCostUsd cannot be enforced; drop maxCostUsd (stopWhen's { "maxCostUsd": ... } counts the dollars calls report)`);
      } else if (model !== undefined && !hasPrice(configModelName(model), file.prices)) {
        problems.push(
          `prices: ${field} "${model}" has no known price, so maxCostUsd cannot be enforced; add ` +
            `"prices": { ${JSON.stringify(configModelName(model))}: { "inputPerMTok": ..., "outputPerMTok": ... } } (0 for a free local model) or drop maxCostUsd`,
        );
      }
    }
  }
  const keys = seedKeys(file);
  const component = chatComponent(file);
  if (file.adapter === undefined && !namesEvaluator(file) && keys.length > 0 && !keys.includes(component)) {
    problems.push(
      file.component !== undefined
        ? `component: "${component}" is not a component of seedCandidate (${keys.join(', ')})`
        : `component: seedCandidate has several components (${keys.join(', ')}); say which one is the system prompt`,
    );
  }
  return problems;
}

const EVALUATOR_ONLY = ['seedFile', 'dataset', 'objective', 'background', 'refiner', 'captureStdio'] as const;

/** The chat task's and an adapter's: a trainset, named texts, none of an evaluator's fields. */
function examplesProblems(file: RunConfigFile): string[] {
  const problems: string[] = [];
  for (const field of EVALUATOR_ONLY) {
    if (file[field] !== undefined) problems.push(`${field}: only with "evaluator" (optimizeAnything's evaluator module); ${field === 'dataset' ? 'the chat task and an adapter take "trainset"' : 'remove it'}`);
  }
  if (file.trainset === undefined) problems.push('trainset: required (a JSONL file of examples), unless the config names an "evaluator"');
  if (typeof file.seedCandidate !== 'object') {
    const hint = typeof file.seedCandidate === 'string' ? '; a string seed needs an "evaluator"' : '';
    problems.push(`seedCandidate: required as named texts ({ "system_prompt": "..." }) for the chat task or an adapter${hint}`);
  }
  return problems;
}

/** An evaluator config's own problems: what it cannot be combined with, the seed, the data. */
function evaluatorProblems(file: RunConfigFile): string[] {
  const problems: string[] = [];
  for (const field of ['adapter', 'taskModel', 'metric', 'component'] as const) {
    if (file[field] !== undefined) problems.push(`${field}: not used with "evaluator" (the evaluator scores each candidate); remove it`);
  }
  if (file.evaluator !== undefined && file.batchEvaluator !== undefined) problems.push('batchEvaluator: give "evaluator" (one example per call) or "batchEvaluator" (many per call), not both');
  if (file.trainset !== undefined) problems.push('trainset: with "evaluator" the examples are "dataset" (and "valset"); rename it');
  if (file.executor?.kind === 'bullmq') problems.push('executor: an evaluator runs in this process; the bullmq executor needs an "adapter" module');
  if (file.seedCandidate !== undefined && file.seedFile !== undefined) problems.push('seedFile: give the seed once, as "seedCandidate" or as "seedFile"');
  if (file.seedCandidate === undefined && file.seedFile === undefined && file.objective === undefined) {
    problems.push('objective: required without a seed ("seedCandidate" or "seedFile"): the reflection model writes the first candidate from it');
  }
  if (file.valset !== undefined && file.dataset === undefined) problems.push('valset: needs "dataset" (a valset alone is no mode: give dataset, or dataset and valset)');
  return problems;
}

/** The user's evaluator or batchEvaluator module (default export `evaluate`, `evaluateBatch`), loaded as an adapter module is; a problem names the field. */
async function loadConfigEvaluator(field: 'evaluator' | 'batchEvaluator', spec: string, base: string, path: string): Promise<RunTask> {
  try {
    const { adapterPath, exportName } = parseAdapterSpec(spec, field, field === 'evaluator' ? 'evaluate' : 'evaluateBatch');
    const loaded = await loadEvaluator(resolve(base, adapterPath), exportName, field);
    return field === 'evaluator'
      ? { kind: 'evaluator', spec, evaluator: loaded as Evaluator<string | Candidate, unknown> }
      : { kind: 'batchEvaluator', spec, batchEvaluator: loaded as BatchEvaluator<string | Candidate, unknown> };
  } catch (error) {
    throw new UsageError(`invalid config ${path}:\n  ${field}: ${errorMessage(error)}`);
  }
}

/** The seed as the config gives it: named texts, a string, a file's text, or none (seedless). */
async function loadSeed(file: RunConfigFile, base: string, path: string): Promise<string | Candidate | undefined> {
  if (file.seedFile === undefined) return file.seedCandidate;
  try {
    return await readFile(resolve(base, file.seedFile), 'utf8');
  } catch (error) {
    throw new UsageError(`invalid config ${path}:\n  seedFile: ${errorMessage(error)}`);
  }
}

/** The user's adapter module, loaded as `gepa-actors worker` loads it; a problem names the field. */
async function loadConfigAdapter(spec: string, base: string, path: string): Promise<RunTask> {
  try {
    const { adapterPath, exportName } = parseAdapterSpec(spec, 'adapter');
    return { kind: 'adapter', spec, adapter: await loadAdapter(resolve(base, adapterPath), exportName) };
  } catch (error) {
    throw new UsageError(`invalid config ${path}:\n  adapter: ${errorMessage(error)}`);
  }
}

/** Reads, validates and loads a CONFIG.json, overrides applied first; any problem is a UsageError (exit 2). */
export async function loadRunConfig(path: string, overrides: RunConfigOverrides = {}): Promise<LoadedRunConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read config ${path}: ${errorMessage(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`config ${path} is not valid JSON: ${errorMessage(error)}`);
  }
  // The flags are validated as the fields they replace (an absolute runDir resolves to itself).
  const given = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    // A seed given on the command line takes the place of the file's, whichever field held it.
    const { seedFile: _seedFile, ...rest } = json as Record<string, unknown>;
    // A string seed's candidates are recorded as named texts of one component: such a seed given back stays a string.
    const seed = overrides.seedCandidate;
    const stringSeed = typeof rest.seedCandidate === 'string' || _seedFile !== undefined;
    if (stringSeed && typeof seed === 'object' && Object.keys(seed).length === 1 && typeof seed[STRING_COMPONENT] === 'string') given.seedCandidate = seed[STRING_COMPONENT];
    json = { ...(seed !== undefined ? rest : json), ...given };
  }
  const parsed = runConfigSchema.safeParse(json);
  if (!parsed.success) throw new UsageError(`invalid config ${path}:\n  ${configIssues(parsed.error).join('\n  ')}`);
  const file = parsed.data;
  const problems = crossFieldProblems(file);
  if (problems.length > 0) throw new UsageError(`invalid config ${path}:\n  ${problems.join('\n  ')}`);

  const base = dirname(path);
  const raw = file.adapter !== undefined || namesEvaluator(file);
  const load = async (field: 'trainset' | 'valset' | 'dataset' | 'holdout', relative: string) => {
    try {
      return await loadJsonlDataset(resolve(base, relative), { raw });
    } catch (error) {
      throw new UsageError(`invalid config ${path}:\n  ${field}: ${errorMessage(error)}`);
    }
  };
  const examples = file.trainset ?? file.dataset;
  const trainset = examples !== undefined ? await load(file.trainset !== undefined ? 'trainset' : 'dataset', examples) : undefined;
  const valset = file.valset !== undefined ? await load('valset', file.valset) : undefined;
  const holdout = file.holdout !== undefined ? await load('holdout', file.holdout) : undefined;
  const seed = await loadSeed(file, base, path);
  const moduleModels = await loadModuleModels(file, base, path);
  const stopWhen = file.stopWhen === undefined ? undefined : readStoppers(file.stopWhen, base);
  const callbacks = file.callbacks === undefined ? undefined : await loadConfigCallbacks(file.callbacks, base, path);
  const task: RunTask =
    file.evaluator !== undefined
      ? await loadConfigEvaluator('evaluator', file.evaluator, base, path)
      : file.batchEvaluator !== undefined
        ? await loadConfigEvaluator('batchEvaluator', file.batchEvaluator, base, path)
        : file.adapter !== undefined
        ? await loadConfigAdapter(file.adapter, base, path)
        : // crossFieldProblems has checked that the chat task's fields are there.
          { kind: 'chat', taskModel: file.taskModel as string, metric: file.metric as ChatMetric, component: chatComponent(file) };
  return {
    file,
    path,
    task,
    ...(trainset ? { trainset } : {}),
    ...(valset ? { valset } : {}),
    ...(holdout ? { holdout } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(file.runDir !== undefined ? { runDir: resolve(base, file.runDir) } : {}),
    moduleModels,
    ...(stopWhen && 'stoppers' in stopWhen ? { stopWhen: stopWhen.stoppers } : {}),
    ...(callbacks ? { callbacks } : {}),
  };
}

/** The reflection and refiner models the config names as modules, loaded; a problem names the field. */
async function loadModuleModels(file: RunConfigFile, base: string, path: string): Promise<LoadedRunConfig['moduleModels']> {
  const load = async (field: string, spec: string | undefined, defaultExport: string) => {
    if (spec === undefined || !isModuleModel(spec)) return undefined;
    try {
      return await loadModuleModel(spec, base, field, defaultExport);
    } catch (error) {
      throw new UsageError(`invalid config ${path}:\n  ${field}: ${errorMessage(error)}`);
    }
  };
  const reflection = await load('reflectionModel', file.reflectionModel, 'reflect');
  const refiner = await load('refiner.refinerModel', typeof file.refiner === 'object' ? file.refiner.refinerModel : undefined, 'refine');
  return { ...(reflection ? { reflection } : {}), ...(refiner ? { refiner } : {}) };
}

/** The callbacks module's export: an object of gepa's callbacks, or a list of them (checked as optimize() checks them). */
async function loadConfigCallbacks(spec: string, base: string, path: string): Promise<Array<Partial<GepaCallbacks>>> {
  try {
    const { adapterPath, exportName } = parseAdapterSpec(spec, 'callbacks', 'callbacks');
    const exported = await loadModuleExport(resolve(base, adapterPath), exportName, 'callbacks');
    return (Array.isArray(exported) ? exported : [exported]) as Array<Partial<GepaCallbacks>>;
  } catch (error) {
    throw new UsageError(`invalid config ${path}:\n  callbacks: ${errorMessage(error)}`);
  }
}
