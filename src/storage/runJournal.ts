// The WorkJournal of a durable run: every completed metric call and reflection is appended to
// the run log, and the records an earlier process left are replayed instead of paid again. A
// key may recur (a traced evaluation repeated in a later step), so each key holds a FIFO queue
// consumed in recording order; the batched schedule asks for them in the same order every time.
import { createHash } from 'node:crypto';
import type { RunLogRecord } from './runLog.js';
import type { Evaluation, LmReply, WorkJournal } from '../types.js';

/** The key of a reflection in the log: prompts run to many kilobytes, their hash does not. */
export function promptHash(prompt: string): string {
  return createHash('sha256').update(prompt).digest('hex');
}

class ReplayQueues<T> {
  private readonly queues = new Map<string, T[]>();
  size = 0;

  push(key: string, value: T): void {
    const queue = this.queues.get(key);
    if (queue) queue.push(value);
    else this.queues.set(key, [value]);
    this.size++;
  }

  shift(key: string): T | undefined {
    const queue = this.queues.get(key);
    const value = queue?.shift();
    if (value !== undefined) this.size--;
    if (queue?.length === 0) this.queues.delete(key);
    return value;
  }
}

export class RunJournal implements WorkJournal {
  private readonly evaluations = new ReplayQueues<Evaluation>();
  private readonly reflections = new ReplayQueues<LmReply>();
  /** Calls answered from the log in this process. */
  replayed = { evaluations: 0, reflections: 0 };

  /** `records`: what earlier processes logged; `append`: where this process logs. */
  constructor(
    records: readonly RunLogRecord[],
    private readonly append: (record: RunLogRecord) => void,
  ) {
    for (const r of records) {
      if (r.t === 'eval') this.evaluations.push(r.key, r.evaluation);
      else if (r.t === 'reflect') this.reflections.push(r.promptHash, r.reply);
    }
  }

  /** Logged calls not replayed (yet): after a full resume, work the schedule no longer asks for. */
  get unreplayed(): { evaluations: number; reflections: number } {
    return { evaluations: this.evaluations.size, reflections: this.reflections.size };
  }

  replayEvaluation(key: string): Evaluation | undefined {
    const evaluation = this.evaluations.shift(key);
    if (evaluation) this.replayed.evaluations++;
    return evaluation;
  }

  recordEvaluation(key: string, evaluation: Evaluation): void {
    this.append({ t: 'eval', key, evaluation });
  }

  replayReflection(prompt: string): LmReply | undefined {
    const reply = this.reflections.shift(promptHash(prompt));
    if (reply) this.replayed.reflections++;
    return reply;
  }

  recordReflection(prompt: string, reply: LmReply): void {
    this.append({ t: 'reflect', promptHash: promptHash(prompt), reply });
  }
}
