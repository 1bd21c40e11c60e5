// The generalization bench task of optimizeAnything: a prompt that tells a simulated model how to
// normalize customer records (dates, amounts, phone numbers, ...). Each record carries three
// fields, some kinds far more common than others; the model gets a field right when the prompt
// states its rule (the first statement wins, a wrong one included; past ~10 sentences it
// overlooks rules more often), else only by luck. The evaluator scores the share of fields right
// and reports input, output, expected output and each mismatch as side information. Trained on
// the dataset, judged on the valset, tested on a held-out split; a function of the seed.
import { systemClock } from '../../clock.js';
import { Rng } from '../../gepa/core/rng.js';
import { allocateByWeight } from '../allocateByWeight.js';
import type { DemoTaskOptions } from '../demoTask.js';
import { combineHashes, hashString, unitFromHash } from '../hash32.js';
import { sampledOnRepeat } from '../repeatedPromptSampling.js';
import { checkLatencyOptions } from '../simulatedLatency.js';
import { evaluatorLatency, type AnythingTask, type SideInfoEvaluation } from './anythingTask.js';
import { createRecordReflectionModel } from './recordReflection.js';
import { parseRulePromptCached, type RulePrompt } from './recordPrompt.js';
import { RECORD_RULES, RECORD_SEED_PROMPT, type FieldValue, type RecordRule } from './recordRules.js';

/** One customer record: its fields, each with the raw value, the normalized one, and what the wrong rule makes of it. */
export interface RecordExample {
  /** The record's id, unique within its split. */
  id: string;
  /** The record's fields, each with its raw, normalized and wrongly normalized value. */
  fields: ReadonlyArray<
    {
      /** The field's name. */
      field: string;
    } & FieldValue
  >;
}

export const RECORD_OBJECTIVE = 'Write the instructions that make the model normalize customer records exactly as our data warehouse expects.';
export const RECORD_BACKGROUND = 'The candidate is the system prompt of a small model that receives one raw customer record (a few fields) and returns it normalized, one `field: value` per line.';

const FIELDS_PER_RECORD = 3;

function generateSplit(seed: number, split: string, size: number): RecordExample[] {
  if (!Number.isInteger(size) || size < 0 || size > 2000) throw new RangeError(`${split} size must be an integer in [0, 2000], got ${size}`);
  const rng = new Rng(combineHashes(hashString(`records:${split}`), seed >>> 0));
  const slots = rng.shuffle(allocateByWeight(FIELDS_PER_RECORD * size, RECORD_RULES, (r) => r.weight));
  const records: RecordExample[] = [];
  for (let i = 0; i < size; i++) {
    const chosen: RecordRule[] = [];
    // Take the next slots, skipping a kind the record already has (it moves to the back).
    while (chosen.length < FIELDS_PER_RECORD && slots.length > 0) {
      const at = slots.findIndex((r) => !chosen.includes(r));
      const rule = at === -1 ? (RECORD_RULES.find((r) => !chosen.includes(r)) as RecordRule) : (slots.splice(at, 1)[0] as RecordRule);
      chosen.push(rule);
    }
    records.push({ id: `${split}-${i}`, fields: chosen.map((rule) => ({ field: rule.field, ...rule.draw(rng) })) });
  }
  return records;
}

/** One call of the simulated model on one record, graded: the score and the side information. */
export function normalizeRecord(prompt: RulePrompt, example: RecordExample, seed: number): SideInfoEvaluation {
  const call = combineHashes(prompt.hash, hashString(example.id, seed), seed);
  const mismatches: string[] = [];
  const output = example.fields.map(({ field, raw, right, wrong }, k) => {
    const draw = unitFromHash(combineHashes(call, k + 1));
    const rule = prompt.stated.get(field);
    const prior = RECORD_RULES.find((r) => r.field === field)?.prior ?? 0;
    let value: string;
    if (rule && draw >= prompt.overlook) value = rule.wrong ? wrong : right;
    else value = draw < prior ? right : raw;
    if (value !== right) mismatches.push(`${field}: got '${value}', expected '${right}'`);
    return `${field}: ${value}`;
  });
  const right = example.fields.length - mismatches.length;
  return {
    score: right / example.fields.length,
    sideInfo: {
      Input: example.fields.map((f) => `${f.field}: ${f.raw}`).join('\n'),
      Output: output.join('\n'),
      Expected: example.fields.map((f) => `${f.field}: ${f.right}`).join('\n'),
      Mismatches: mismatches.length === 0 ? 'none: every field matches' : mismatches.join('\n'),
    },
  };
}

/** The record-normalization task for a seed; sizes default to 30 / 20 / 60, latency as the demo's. */
export function createRecordTask(options: DemoTaskOptions = {}): AnythingTask<RecordExample> {
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  const latency = { meanMs: options.metricCallMs ?? 0, jitter: options.jitter ?? ([0.5, 1.5] as const), clock: options.clock ?? systemClock };
  checkLatencyOptions('metricCallMs', latency.meanMs, latency.jitter);
  return {
    seedCandidate: RECORD_SEED_PROMPT,
    objective: RECORD_OBJECTIVE,
    background: RECORD_BACKGROUND,
    dataset: generateSplit(seed, 'train', options.trainSize ?? 30),
    valset: generateSplit(seed, 'val', options.valSize ?? 20),
    testset: generateSplit(seed, 'test', options.testSize ?? 60),
    async evaluate(candidate, example, ctx) {
      if (example === undefined) throw new TypeError('the record task evaluates a prompt on a record: call it with an example');
      const prompt = parseRulePromptCached(candidate);
      await evaluatorLatency(latency, combineHashes(prompt.hash, hashString(example.id, seed), seed), ctx.signal);
      return normalizeRecord(prompt, example, seed);
    },
    reflectionLm: sampledOnRepeat(createRecordReflectionModel({ seed, meanMs: options.reflectionMs ?? 0, jitter: latency.jitter, clock: latency.clock })),
  };
}
