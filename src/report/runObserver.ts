// What the report needs that the result does not hold, observed at the run's edges without
// changing it: the adapter and the reflection model are wrapped so that each call's tokens and
// dollars are tallied per model, and each valset evaluation's score, output and feedback is kept
// per candidate, so the report can show the best candidate's answer on every valset example.
// Only calls made in this process are seen: a resumed run's replayed calls and metric calls run
// on BullMQ workers are not. A durable run's log holds them all, so `fromLog` reads the same
// figures from it (the CLI does, for every run with a run directory).
import { candidateHash } from '../gepa/core/candidateHash.js';
import type { RunLogRecord } from '../storage/runLog.js';
import type { OptimizeConfig } from '../config/optimizeConfig.js';
import type { Adapter, Candidate, Evaluation } from '../gepa/core/adapter.js';
import type { LanguageModel, LmReply } from '../gepa/core/languageModel.js';
import { ModelUsageTally, type ModelUsage } from './modelUsage.js';
import { modelStringName } from '../lm/resolveLanguageModel.js';

/** One valset example as the report shows it: what was asked, and the candidate's answer. */
export interface ValsetAnswer {
  /** A short text of the example (its `input` field, else its JSON). */
  example: string;
  /** Undefined when this process made no such call (replayed, or run on a worker). */
  evaluation?: Pick<Evaluation, 'score' | 'output' | 'feedback'>;
}

/** Where an observation's figures come from: the calls made by this process, or a durable run's log (every process's, workers' included). */
export type ObservationSource = 'this process' | 'the run log';

/** What observeRun saw of a run: tokens and dollars per model, and the valset answers. */
export interface RunObservation {
  /** Where the figures come from. */
  readonly source: ObservationSource;
  /** How the tokens-per-model rows name the task and reflection models. */
  readonly names: Required<ModelNames>;
  /** Tokens, calls and dollars per model (task and reflection). */
  usage(): ModelUsage[];
  /** `candidate`'s evaluation on each valset example, in valset order. */
  valsetAnswers(candidate: Candidate): ValsetAnswer[];
  /**
   * The same figures read from a durable run's log records: every metric call and reflection any
   * process paid for. `valIds[j]`: the example-table id of valset example j (the log's keys use them).
   */
  fromLog(records: readonly RunLogRecord[], valIds: readonly number[]): RunObservation;
}

/** How observeRun names the models when they do not name themselves. */
export interface ModelNames {
  /** The task model's name. */
  task?: string;
  /** The reflection model's name. */
  reflection?: string;
}

const MAX_EXAMPLE_CHARS = 400;

/** The `model` property that OpenAI models (and the chat adapter) carry. */
const nameOf = (x: unknown): string | undefined => {
  const model = (x as { model?: unknown } | null)?.model;
  return typeof model === 'string' ? model : undefined;
};

function exampleText(example: unknown): string {
  const input = (example as { input?: unknown } | null)?.input;
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = JSON.stringify(example) ?? String(example);
    } catch {
      text = String(example);
    }
  }
  return text.length > MAX_EXAMPLE_CHARS ? `${text.slice(0, MAX_EXAMPLE_CHARS)}…` : text;
}

/** The config with its adapter and (function) reflection model observed; everything else as given. */
export function observeRun<Example>(
  config: OptimizeConfig<Example>,
  names: ModelNames = {},
): {
  /** Pass this config to optimize(). */
  config: OptimizeConfig<Example>;
  /** Read it during and after the run. */
  observation: RunObservation;
} {
  const tally = new ModelUsageTally();
  const valset = config.valset ?? config.trainset;
  const valsetIndex = new Map<unknown, number>(valset.map((example, i) => [example, i]));
  // candidate hash -> valset index -> evaluation; untraced calls win (they are the valset's own).
  const answers = new Map<string, Map<number, { traced: boolean; evaluation: ValsetAnswer['evaluation'] }>>();
  const { adapter } = config;
  const taskName = names.task ?? nameOf(adapter) ?? 'task model (adapter)';

  const answer = (evaluation: Evaluation): ValsetAnswer['evaluation'] => ({ score: evaluation.score, output: evaluation.output, ...(evaluation.feedback !== undefined ? { feedback: evaluation.feedback } : {}) });

  // A prototype link, not a copy: a class instance's methods and extra fields (estimateMaxCostUsd) stay reachable.
  const observed: Adapter<Example> = Object.create(adapter);
  observed.evaluate = async (candidate, example, ctx) => {
    const evaluation = await adapter.evaluate(candidate, example, ctx);
    tally.record('task', taskName, evaluation.usage, evaluation.costUsd);
    const index = valsetIndex.get(example);
    if (index !== undefined) {
      const hash = candidateHash(candidate);
      const byExample = answers.get(hash) ?? new Map();
      answers.set(hash, byExample);
      const kept = byExample.get(index);
      if (!kept || (kept.traced && !ctx.captureTraces)) {
        byExample.set(index, { traced: ctx.captureTraces, evaluation: answer(evaluation) });
      }
    }
    return evaluation;
  };

  const reflectionName = names.reflection ?? (typeof config.reflectionLm === 'string' ? modelStringName(config.reflectionLm) : nameOf(config.reflectionLm)) ?? 'reflection model';
  let reflectionLm = config.reflectionLm;
  if (typeof reflectionLm === 'function') {
    const lm = reflectionLm;
    const wrapped: LanguageModel = async (prompt, ctx) => {
      const reply: string | LmReply = await lm(prompt, ctx);
      const spend: Partial<LmReply> = typeof reply === 'string' ? {} : reply;
      tally.record('reflection', reflectionName, spend.usage, spend.costUsd);
      return reply;
    };
    // Keep what the runtime reads off a model (managesSlots, model, estimateMaxCostUsd).
    reflectionLm = Object.assign(wrapped, lm);
  }

  function fromLog(records: readonly RunLogRecord[], valIds: readonly number[]): RunObservation {
    const logged = new ModelUsageTally();
    // key -> its first answer that is not a failure (a failed call was tried again).
    const evaluations = new Map<string, Evaluation>();
    for (const r of records) {
      if (r.t === 'eval') {
        logged.record('task', taskName, r.evaluation.usage, r.evaluation.costUsd);
        if (!r.evaluation.failure && !evaluations.has(r.key)) evaluations.set(r.key, r.evaluation);
      } else if (r.t === 'reflect') logged.record('reflection', reflectionName, r.reply.usage, r.reply.costUsd);
    }
    return {
      source: 'the run log',
      names: { task: taskName, reflection: reflectionName },
      usage: () => logged.rows(),
      valsetAnswers: (candidate) => {
        const hash = candidateHash(candidate);
        return valset.map((example, j) => {
          // The valset's own evaluation is untraced; a traced one (the candidate as a parent) will do.
          const evaluation = evaluations.get(`${hash}:${valIds[j]}:0`) ?? evaluations.get(`${hash}:${valIds[j]}:1`);
          return { example: exampleText(example), ...(evaluation ? { evaluation: answer(evaluation) } : {}) };
        });
      },
      fromLog,
    };
  }

  return {
    config: { ...config, adapter: observed, reflectionLm },
    observation: {
      source: 'this process',
      names: { task: taskName, reflection: reflectionName },
      usage: () => tally.rows(),
      valsetAnswers: (candidate) => {
        const byExample = answers.get(candidateHash(candidate));
        return valset.map((example, i) => {
          const evaluation = byExample?.get(i)?.evaluation;
          return { example: exampleText(example), ...(evaluation ? { evaluation } : {}) };
        });
      },
      fromLog,
    },
  };
}
