// The ready-made adapter for question/answer tasks: the candidate's component is the system
// prompt, the example's input the user message, and the reply is scored against the example's
// answer (exact-match or contains-answer) with feedback the reflection LM can act on. Also the
// dataset row schema and a JSONL loader that names the line of every bad row.
// Room adapters/: imported by run/, report/, the command and the entries.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Adapter, Candidate, EvalContext, Evaluation, ReflectiveDataset } from '../gepa/core/adapter.js';
import type { LmReply } from '../gepa/core/languageModel.js';
import type { ChatMessages } from '../lm/openaiLanguageModel.js';
import type { SlotAwareContext } from '../lm/slotAwareModel.js';
import { errorMessage } from '../errors/errorMessage.js';
import { failureOf } from '../evaluation/failureTally.js';

export const datasetRowSchema = z.object({
  /** The user message the task model answers. */
  input: z.string(),
  /** The answer the metric expects. */
  answer: z.string(),
});
/**
 * A row of the chat task: JSONL `{ "input": string, "answer": string }`.
 * @interface
 */
export type ChatExample = z.infer<typeof datasetRowSchema>;

/** How the chat adapter scores a reply: 'exact-match' (after normalizing case, spaces and numbers) or 'contains-answer'. */
export type ChatMetric = 'exact-match' | 'contains-answer';

/** System prompt + user message in, a reply out: createOpenAIChatModel fits, so does a stub. */
export type ChatTaskModel = ((messages: ChatMessages, ctx: SlotAwareContext) => Promise<string | LmReply>) & {
  /** Worst-case dollars of one call, reserved under maxCostUsd (the factories set it when the model is priced). */
  estimateMaxCostUsd?: (messages: ChatMessages) => number;
};

/** Options of createChatAdapter. */
export interface ChatAdapterOptions {
  /** The model that answers: the candidate's component as system prompt, the row's input as user message. */
  taskModel: ChatTaskModel;
  /** The candidate component used as the system prompt. Default 'system_prompt'. */
  component?: string;
  /** How a reply is scored against the row's answer. */
  metric: ChatMetric;
  /** Pulls the answer out of a reply before scoring (e.g. after "Answer:"); default the whole reply. */
  extractAnswer?: (output: string) => string;
  /** Feedback quotes at most this many characters of a reply. Default 1500. */
  maxQuotedChars?: number;
}

/** The chat task's adapter (createChatAdapter). */
export type ChatAdapter = Adapter<ChatExample> & {
  /** Worst-case dollars of one evaluate call; present when the task model is priced. */
  estimateMaxCostUsd?: (candidate: Candidate, example: ChatExample) => number;
  /** The task model's name, when it has one (report.html's tokens per model names its row by it). */
  model?: string;
};

// ---------------------------------------------------------------------------------------------
// Scoring

/**
 * Trimmed, case-folded, whitespace collapsed; wrapping quotes or markdown emphasis and a final
 * period removed, since none of them changes what the answer is.
 */
export function normalizeAnswer(text: string): string {
  let t = text.trim().toLowerCase().replace(/\s+/g, ' ');
  for (let previous = ''; previous !== t; ) {
    previous = t;
    t = t.replace(/^(["'`*_])(.*)\1$/s, '$2').replace(/\.$/, '').trim();
  }
  return t;
}

/** A number written plainly, with thousands separators or a leading $; else undefined. */
export function parseNumber(text: string): number | undefined {
  const t = normalizeAnswer(text).replace(/^\$/, '').replace(/(\d),(?=\d{3}(?!\d))/g, '$1');
  if (!/^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

function sameNumber(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

export function exactMatch(output: string, answer: string): boolean {
  if (normalizeAnswer(output) === normalizeAnswer(answer)) return true;
  const [o, a] = [parseNumber(output), parseNumber(answer)];
  return o !== undefined && a !== undefined && sameNumber(o, a);
}

// Numbers standing alone: not glued to a preceding word, so "3-5" reads as 3 and 5.
const NUMBER_TOKEN = /(?<![\p{L}\p{N}.])-?\$?\d+(?:,\d{3})*(?:\.\d+)?/gu;

function numbersIn(text: string): number[] {
  return [...text.matchAll(NUMBER_TOKEN)].flatMap((m) => parseNumber(m[0]) ?? []);
}

/**
 * The answer appears in the output as a whole: a numeric answer as one of the output's numbers
 * (so 4 is not found in 14), text at word boundaries.
 */
export function containsAnswer(output: string, answer: string): boolean {
  const numeric = parseNumber(answer);
  if (numeric !== undefined) return numbersIn(output).some((n) => sameNumber(n, numeric));
  const needle = normalizeAnswer(answer);
  if (needle === '') return false;
  const haystack = normalizeAnswer(output);
  const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    if (!isWordChar(haystack[at - 1]) && !isWordChar(haystack[at + needle.length])) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Feedback

function quote(text: string, maxChars: number): string {
  if (text.length <= maxChars) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, maxChars))} ... (${text.length - maxChars} more characters)`;
}

function feedbackFor(metric: ChatMetric, output: string, answer: string, correct: boolean, maxChars: number): string {
  const expected = `The expected answer is ${JSON.stringify(answer)}`;
  if (correct) return `Correct. ${expected} and the response gave it.`;
  if (output.trim() === '') return `Incorrect. ${expected}; the response was empty.`;
  const parts = [`Incorrect. ${expected}; the response was ${quote(output, maxChars)}.`];
  if (metric === 'exact-match' && containsAnswer(output, answer)) {
    parts.push(
      'The response contains the correct answer but also other text: exact-match scoring compares the ' +
        'whole response, so it must be only the answer, with no explanation or formatting.',
    );
  } else if (parseNumber(answer) !== undefined && numbersIn(output).length === 0) {
    parts.push('The answer is a number, but the response contains no number.');
  }
  return parts.join(' ');
}

// ---------------------------------------------------------------------------------------------
// The adapter

const NO_OUTPUT = '(no output: the task model call failed)';

/**
 * The adapter of `gepa-actors run`'s chat task: the task model answers each row's input with the
 * candidate's component as system prompt; the metric scores the reply against the row's answer,
 * and the feedback says what was expected. A failed model call scores 0 and is counted by kind.
 */
export function createChatAdapter(options: ChatAdapterOptions): ChatAdapter {
  const { taskModel, metric } = options;
  const component = options.component ?? 'system_prompt';
  const extractAnswer = options.extractAnswer ?? ((output: string) => output);
  const maxQuotedChars = options.maxQuotedChars ?? 1500;
  const score = metric === 'exact-match' ? exactMatch : containsAnswer;

  const messagesFor = (candidate: Candidate, example: ChatExample): ChatMessages => {
    const system = candidate[component];
    // A missing component is a wiring mistake, not a bad example: fail loudly.
    if (system === undefined) throw new Error(`The candidate has no component "${component}" (chat adapter)`);
    return { system, user: example.input };
  };

  async function evaluate(
    candidate: Candidate,
    example: ChatExample,
    ctx: EvalContext & { runInSlot?: SlotAwareContext['runInSlot'] },
  ): Promise<Evaluation> {
    const messages = messagesFor(candidate, example);
    let reply: LmReply;
    try {
      const raw = await taskModel(messages, {
        signal: ctx.signal,
        ...(ctx.runInSlot ? { runInSlot: ctx.runInSlot } : {}),
        ...(ctx.onRetry ? { onRetry: ctx.onRetry } : {}),
      });
      reply = typeof raw === 'string' ? { text: raw } : raw;
    } catch (err) {
      // Cancellation is not a score; everything else is this example's failure, not the run's.
      if (ctx.signal.aborted) throw err;
      const message = errorMessage(err);
      const costUsd = (err as { costUsd?: unknown } | null)?.costUsd;
      return {
        score: 0,
        feedback: `The task model call failed, so there is no response to score: ${message}`,
        // Counted by kind; many alike in a row stop the run (src/evaluation/failureTally.ts).
        failure: failureOf(err, 'other'),
        ...(typeof costUsd === 'number' ? { costUsd } : {}),
        ...(ctx.captureTraces ? { trace: { messages, error: message } } : {}),
      };
    }
    const correct = score(extractAnswer(reply.text), example.answer);
    return {
      score: correct ? 1 : 0,
      output: reply.text,
      feedback: feedbackFor(metric, reply.text, example.answer, correct, maxQuotedChars),
      ...(reply.costUsd !== undefined ? { costUsd: reply.costUsd } : {}),
      ...(reply.usage ? { usage: reply.usage } : {}),
      ...(ctx.captureTraces ? { trace: { messages, reply } } : {}),
    };
  }

  function makeReflectiveDataset(
    _candidate: Candidate,
    results: ReadonlyArray<{ example: ChatExample; evaluation: Evaluation }>,
    components: readonly string[],
  ): ReflectiveDataset {
    const records = results.map(({ example, evaluation }) => ({
      Inputs: example.input,
      'Generated Outputs': typeof evaluation.output === 'string' ? evaluation.output : NO_OUTPUT,
      Feedback: evaluation.feedback ?? `Score: ${evaluation.score}`,
    }));
    return Object.fromEntries(components.map((c) => [c, records]));
  }

  const estimate = taskModel.estimateMaxCostUsd;
  const modelName = (taskModel as { model?: unknown }).model;
  return {
    evaluate,
    makeReflectiveDataset,
    ...(typeof modelName === 'string' ? { model: modelName } : {}),
    ...(estimate
      ? { estimateMaxCostUsd: (candidate: Candidate, example: ChatExample) => estimate(messagesFor(candidate, example)) }
      : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Datasets

const MAX_REPORTED_ROW_ERRORS = 20;

/** Options of loadJsonlDataset. */
export interface JsonlDatasetOptions {
  /**
   * Any JSON value per line, as it is (for a user's own adapter); default false: chat rows
   * `{ "input": string, "answer": string }`, each checked.
   */
  raw?: boolean;
}

/**
 * One row per non-blank line; every bad row is named by its line. Chat rows by default; with
 * `raw`, whatever JSON each line holds.
 */
export function loadJsonlDataset(path: string, options?: { raw?: false }): Promise<ChatExample[]>;
export function loadJsonlDataset(path: string, options: { raw: true }): Promise<unknown[]>;
export function loadJsonlDataset(path: string, options?: JsonlDatasetOptions): Promise<unknown[]>;
export async function loadJsonlDataset(path: string, options: JsonlDatasetOptions = {}): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`Cannot read dataset ${path}: ${errorMessage(err)}`);
  }
  const rows: unknown[] = [];
  const errors: string[] = [];
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === '') return;
      const where = `${path}:${i + 1}`;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (err) {
        errors.push(`${where}: not valid JSON (${errorMessage(err)})`);
        return;
      }
      if (options.raw) {
        rows.push(value);
        return;
      }
      const row = datasetRowSchema.safeParse(value);
      if (row.success) rows.push(row.data);
      else {
        const issues = row.error.issues.map((issue) => `${issue.path.join('.') || 'row'}: ${issue.message}`);
        errors.push(`${where}: expected {"input": string, "answer": string}; ${issues.join('; ')}`);
      }
    });
  if (errors.length > 0) {
    const more = errors.length > MAX_REPORTED_ROW_ERRORS ? `\n  ... and ${errors.length - MAX_REPORTED_ROW_ERRORS} more` : '';
    // Rows of another shape are not wrong, only not chat rows: say how to read them as they are.
    const shape = !errors.some((e) => e.includes('expected {"input"')) ? '' : '\n  (rows of another shape are for your own adapter: loadJsonlDataset(path, { raw: true }) reads each line as it is; a run config names the adapter with "adapter")';
    throw new Error(`Invalid dataset ${path}:\n  ${errors.slice(0, MAX_REPORTED_ROW_ERRORS).join('\n  ')}${more}${shape}`);
  }
  if (rows.length === 0) throw new Error(`Dataset ${path} has no rows`);
  return rows;
}
