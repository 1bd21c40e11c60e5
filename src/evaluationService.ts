// Runs the run's paid work under the one worker budget: metric calls (through an executor, with
// an evaluation cache so a (candidate, example) pair is paid once, in-flight duplicates
// included; traced runs are shared only while in flight) and reflection calls. A thrown adapter error becomes a recorded score-0 call; a
// failed reflection becomes an error reply. Nothing here knows about actors.
import type { MetricCallExecutor } from './executor.js';
import type { WorkerSlots, WorkKind } from './workerSlots.js';
import type { Candidate, Evaluation, LanguageModel, LmReply } from './types.js';

export interface EvaluateRequest {
  candidate: Candidate;
  hash: string;
  exampleIds: readonly number[];
  captureTraces: boolean;
  kind: WorkKind;
}

export interface EvaluateReply {
  evaluations: Evaluation[];
  /** Metric calls this request paid for (cache hits excluded). */
  paidCalls: number;
  costUsd: number;
}

export type ReflectReply = { ok: true; reply: LmReply; costUsd: number } | { ok: false; error: string; costUsd: number };

/**
 * Durable runs: completed paid work is recorded, and on resume replayed instead of paid again.
 * Keys are `${candidateHash}:${exampleId}:${traces ? 1 : 0}` for metric calls and the prompt for
 * reflections; a key may recur, so replays are consumed in recording order.
 */
export interface WorkJournal {
  replayEvaluation(key: string): Evaluation | undefined;
  recordEvaluation(key: string, evaluation: Evaluation): void;
  replayReflection(prompt: string): LmReply | undefined;
  recordReflection(prompt: string, reply: LmReply): void;
}

/** An LM that runs each attempt in a slot itself (so backoff waits do not hold one). */
export type SlotAwareLanguageModel = LanguageModel & { managesSlots?: boolean };

export interface EvaluationServiceOptions<Example> {
  examples: readonly Example[];
  executor: MetricCallExecutor<Example>;
  reflectionLm: SlotAwareLanguageModel;
  slots: WorkerSlots;
  signal: AbortSignal;
  journal?: WorkJournal;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function normalizeEvaluation(value: unknown): Evaluation {
  const e = value as Evaluation | null | undefined;
  if (!e || typeof e.score !== 'number' || Number.isNaN(e.score)) {
    return { score: 0, feedback: `The adapter returned an invalid evaluation (no numeric score): ${JSON.stringify(value)?.slice(0, 200)}` };
  }
  return e;
}

export function normalizeLmReply(value: string | LmReply): LmReply {
  if (typeof value === 'string') return { text: value };
  if (!value || typeof value.text !== 'string') throw new Error('the language model returned no text');
  return value;
}

export class EvaluationService<Example> {
  private readonly cache = new Map<string, Promise<Evaluation>>();
  metricCalls = 0;
  reflectionCalls = 0;
  costUsd = 0;

  constructor(private readonly options: EvaluationServiceOptions<Example>) {}

  async evaluate(request: EvaluateRequest): Promise<EvaluateReply> {
    let paidCalls = 0;
    let costUsd = 0;
    const pending = request.exampleIds.map((id) => {
      const key = `${request.hash}:${id}:${request.captureTraces ? 1 : 0}`;
      let entry = this.cache.get(key);
      if (!entry) {
        paidCalls++;
        entry = this.runMetricCall(request, id, key);
        this.cache.set(key, entry);
        // Traced runs feed reflection: identical ones in flight share a call, but a later
        // request gets a fresh run (a replay would make a failing loop free, and endless).
        if (request.captureTraces) {
          const settled = entry;
          settled.then(
            () => this.cache.delete(key),
            () => this.cache.delete(key),
          );
        }
        // Only this request pays for the call's dollars; cache hits are free.
        entry = entry.then((e) => {
          costUsd += e.costUsd ?? 0;
          return e;
        });
      }
      return entry;
    });
    const evaluations = await Promise.all(pending);
    return { evaluations, paidCalls, costUsd };
  }

  private runMetricCall(request: EvaluateRequest, exampleId: number, key: string): Promise<Evaluation> {
    const { executor, examples, slots, signal, journal } = this.options;
    const example = examples[exampleId] as Example;
    const replayed = journal?.replayEvaluation(key);
    if (replayed) {
      // Paid for by an earlier process: counted, not run again.
      this.metricCalls++;
      this.costUsd += replayed.costUsd ?? 0;
      return Promise.resolve(replayed);
    }
    return slots.run(
      request.kind,
      async () => {
        this.metricCalls++;
        let evaluation: Evaluation;
        try {
          evaluation = normalizeEvaluation(
            await executor.evaluate(request.candidate, example, exampleId, { captureTraces: request.captureTraces, signal }),
          );
        } catch (error) {
          if (signal.aborted) throw error;
          evaluation = { score: 0, feedback: `The evaluation failed with an error: ${errorMessage(error)}` };
        }
        this.costUsd += evaluation.costUsd ?? 0;
        journal?.recordEvaluation(key, evaluation);
        return evaluation;
      },
      signal,
    );
  }

  async reflect(prompt: string): Promise<ReflectReply> {
    const { reflectionLm, slots, signal, journal } = this.options;
    const replayed = journal?.replayReflection(prompt);
    if (replayed) {
      this.reflectionCalls++;
      this.costUsd += replayed.costUsd ?? 0;
      return { ok: true, reply: replayed, costUsd: replayed.costUsd ?? 0 };
    }
    const call = async () => {
      this.reflectionCalls++;
      return reflectionLm(prompt, {
        signal,
        runInSlot: <T>(fn: () => Promise<T>) => slots.run('reflection', fn, signal),
      } as { signal: AbortSignal });
    };
    try {
      const raw = reflectionLm.managesSlots ? await call() : await slots.run('reflection', call, signal);
      const reply = normalizeLmReply(raw);
      const costUsd = reply.costUsd ?? 0;
      this.costUsd += costUsd;
      journal?.recordReflection(prompt, reply);
      return { ok: true, reply, costUsd };
    } catch (error) {
      if (signal.aborted) throw error;
      return { ok: false, error: errorMessage(error), costUsd: 0 };
    }
  }

  async close(): Promise<void> {
    await this.options.executor.close?.();
  }
}
