// The `run` command's CONFIG.json: its zod schema (every error names its field), the checks
// that span fields (a stop condition; a dollar budget needs priced models), and loading: paths
// (datasets, runDir) are relative to the CONFIG file, datasets are JSONL {input, answer} rows.
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { loadJsonlDataset, type ChatExample } from '../adapters/chatAdapter.js';
import { hasPrice, priceOverridesSchema } from '../lm/priceTable.js';
import { settingsFields } from '../config/runSettings.js';
import { UsageError } from './exitCodes.js';
import { errorMessage } from '../errorMessage.js';

const positiveInt = z.number().int().positive();
// The optimizer's own fields are checked exactly as optimize() checks them.
const f = settingsFields;

export const runConfigSchema = z
  .object({
    seedCandidate: f.seedCandidate,
    trainset: z.string().min(1),
    valset: z.string().min(1).optional(),
    taskModel: z.string().min(1),
    reflectionModel: z.string().min(1),
    metric: z.enum(['exact-match', 'contains-answer']),
    /** The seedCandidate component used as the task model's system prompt. */
    component: z.string().min(1).optional(),
    maxMetricCalls: f.maxMetricCalls,
    maxCostUsd: f.maxCostUsd,
    timeoutMs: f.timeoutMs,
    targetScore: f.targetScore,
    maxStepsWithoutImprovement: f.maxStepsWithoutImprovement,
    schedule: f.schedule,
    workers: f.workers,
    reflectionMinibatchSize: f.reflectionMinibatchSize,
    seed: f.seed,
    merge: f.merge,
    runDir: f.runDir,
    failFast: f.failFast,
    maxConsecutiveFailures: f.maxConsecutiveFailures,
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

export interface LoadedRunConfig {
  file: RunConfigFile;
  path: string;
  trainset: ChatExample[];
  valset?: ChatExample[];
  /** Absolute, when the config has one. */
  runDir?: string;
  /** The component that is the system prompt. */
  component: string;
}

const STOP_FIELDS = ['maxMetricCalls', 'maxCostUsd', 'timeoutMs', 'targetScore', 'maxStepsWithoutImprovement'] as const;

/** One line per problem, each starting with the field's path; unknown fields named one by one. */
export function configIssues(error: z.ZodError): string[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `${[...issue.path, key].join('.')}: unknown field (check its spelling)`);
    }
    return [`${issue.path.length > 0 ? issue.path.join('.') : 'config'}: ${issue.message}`];
  });
}

/** Problems no single field shows; each names the field to fix. */
export function crossFieldProblems(file: RunConfigFile): string[] {
  const problems: string[] = [];
  if (STOP_FIELDS.every((f) => file[f] === undefined)) {
    problems.push(`maxMetricCalls: at least one stop condition is required (${STOP_FIELDS.join(', ')})`);
  }
  if (file.maxCostUsd !== undefined) {
    for (const field of ['taskModel', 'reflectionModel'] as const) {
      const model = file[field];
      if (!hasPrice(model, file.prices)) {
        problems.push(
          `prices: ${field} "${model}" has no known price, so maxCostUsd cannot be enforced; add ` +
            `"prices": { ${JSON.stringify(model)}: { "inputPerMTok": ..., "outputPerMTok": ... } } (0 for a free local model) or drop maxCostUsd`,
        );
      }
    }
  }
  const keys = Object.keys(file.seedCandidate);
  const component = file.component ?? (keys.length === 1 ? (keys[0] as string) : 'system_prompt');
  if (keys.length > 0 && !keys.includes(component)) {
    problems.push(
      file.component !== undefined
        ? `component: "${component}" is not a component of seedCandidate (${keys.join(', ')})`
        : `component: seedCandidate has several components (${keys.join(', ')}); say which one is the system prompt`,
    );
  }
  return problems;
}

/** Reads, validates and loads a CONFIG.json; any problem is a UsageError (exit 2). */
export async function loadRunConfig(path: string): Promise<LoadedRunConfig> {
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
  const parsed = runConfigSchema.safeParse(json);
  if (!parsed.success) throw new UsageError(`invalid config ${path}:\n  ${configIssues(parsed.error).join('\n  ')}`);
  const file = parsed.data;
  const problems = crossFieldProblems(file);
  if (problems.length > 0) throw new UsageError(`invalid config ${path}:\n  ${problems.join('\n  ')}`);

  const base = dirname(path);
  const load = async (field: 'trainset' | 'valset', relative: string) => {
    try {
      return await loadJsonlDataset(resolve(base, relative));
    } catch (error) {
      throw new UsageError(`invalid config ${path}:\n  ${field}: ${errorMessage(error)}`);
    }
  };
  const trainset = await load('trainset', file.trainset);
  const valset = file.valset !== undefined ? await load('valset', file.valset) : undefined;
  const keys = Object.keys(file.seedCandidate);
  return {
    file,
    path,
    trainset,
    ...(valset ? { valset } : {}),
    ...(file.runDir !== undefined ? { runDir: resolve(base, file.runDir) } : {}),
    component: file.component ?? (keys.length === 1 ? (keys[0] as string) : 'system_prompt'),
  };
}
