// The hover docs cannot drift from the runtime: every default a doc comment states on
// OptimizeConfig, Schedule, BullmqExecutorOptions and the enumerated setting values is read out of
// the source (TypeScript's parser) and compared with what the runtime resolves when the option is
// left out (resolveSettings for a batched and an async run; the executor's defaults). A default
// stated in a form the test cannot read must be listed in PROSE with a check of its own.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { resolveSettings, type RunSettings } from '../src/config/runSettings.js';
import { BULLMQ_EXECUTOR_DEFAULTS } from '../src/executors/bullmqExecutor.js';
import { chosenReflectionStrategy } from '../src/gepa/reflection/reflectionStrategies.js';
import type { OptimizeConfig } from '../src/config/optimizeConfig.js';

/** A stated default: one value, or one per schedule ("Default 'x' (batched), 'y' (async)"). */
interface StatedDefault {
  path: string;
  batched: unknown;
  async: unknown;
  phrase: string;
}

const LITERAL = String.raw`'[^']*'|-?\d[\d,]*(?:\.\d+)?|true|false`;
const PER_SCHEDULE = new RegExp(String.raw`\bDefault:?\s+(${LITERAL})\s+\(batched\),\s+(${LITERAL})\s+\(async\)`, 'g');
const PLAIN = new RegExp(String.raw`\b[Dd]efault:?\s+(${LITERAL})(?!\s+\(batched\))`, 'g');
const TRAILING = new RegExp(String.raw`(${LITERAL})\s+\((?:the\s+)?default\)`, 'g');
const SUB_FIELD = new RegExp(String.raw`\b(\w+)\s+defaults\s+to\s+(${LITERAL})`, 'g');

function literal(text: string): unknown {
  if (text.startsWith("'")) return text.slice(1, -1);
  if (text === 'true' || text === 'false') return text === 'true';
  return Number(text.replace(/,/g, ''));
}

/** The text of the /** comments right before a node, without the comment markers. */
function docText(node: ts.Node, source: ts.SourceFile): string {
  const ranges = ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? [];
  return ranges
    .map((r) => source.text.slice(r.pos, r.end))
    .filter((c) => c.startsWith('/**'))
    .map((c) => c.replace(/^\/\*\*|\*\/$/g, '').replace(/^\s*\* ?/gm, ''))
    .join(' ')
    .replace(/\s+/g, ' ');
}

/** Every (path, doc comment) of the named declarations and their members, nested type literals included. */
function documentedMembers(file: string, names: readonly string[]): Array<{ path: string; doc: string }> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Array<{ path: string; doc: string }> = [];
  const visitType = (type: ts.TypeNode | undefined, path: string): void => {
    if (!type) return;
    if (ts.isUnionTypeNode(type) || ts.isIntersectionTypeNode(type)) type.types.forEach((t) => visitType(t, path));
    else if (ts.isTypeLiteralNode(type)) {
      found.push({ path, doc: docText(type, source) });
      visitMembers(type.members, path);
    }
  };
  const visitMembers = (members: ts.NodeArray<ts.TypeElement>, prefix: string): void => {
    for (const member of members) {
      if (!ts.isPropertySignature(member) || !member.name) continue;
      const path = `${prefix}.${member.name.getText(source)}`;
      found.push({ path, doc: docText(member, source) });
      visitType(member.type, path);
    }
  };
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement) && names.includes(statement.name.text)) {
      found.push({ path: statement.name.text, doc: docText(statement, source) });
      visitMembers(statement.members, statement.name.text);
    } else if (ts.isTypeAliasDeclaration(statement) && names.includes(statement.name.text)) {
      found.push({ path: statement.name.text, doc: docText(statement, source) });
      visitType(statement.type, statement.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name) && names.includes(declaration.name.text)) found.push({ path: declaration.name.text, doc: docText(statement, source) });
      }
    }
  }
  return found;
}

/** The defaults a doc comment states in a readable form, and how many mentions of "default" it has that none of them explains. */
function statedDefaults(path: string, doc: string): { stated: StatedDefault[]; unread: number } {
  const stated: StatedDefault[] = [];
  for (const m of doc.matchAll(PER_SCHEDULE)) stated.push({ path, batched: literal(m[1]!), async: literal(m[2]!), phrase: m[0] });
  for (const m of doc.matchAll(PLAIN)) stated.push({ path, batched: literal(m[1]!), async: literal(m[1]!), phrase: m[0] });
  for (const m of doc.matchAll(TRAILING)) stated.push({ path, batched: literal(m[1]!), async: literal(m[1]!), phrase: m[0] });
  for (const m of doc.matchAll(SUB_FIELD)) stated.push({ path: `${path}.${m[1]}`, batched: literal(m[2]!), async: literal(m[2]!), phrase: m[0] });
  const mentions = doc.match(/default/gi)?.length ?? 0;
  return { stated, unread: mentions - stated.length };
}

const minimal: OptimizeConfig<number> = { seedCandidate: { p: 'x' }, trainset: [1], adapter: { evaluate: async () => ({ score: 0 }) }, reflectionLm: async () => 'x', maxMetricCalls: 10 };
const settings = {
  batched: resolveSettings(minimal),
  async: resolveSettings({ ...minimal, schedule: { kind: 'async', inFlight: 2 } }),
};
const race = resolveSettings({ ...minimal, valsetPolicy: { kind: 'race' } }).valsetPolicy;

/** An option of the other schedule (rebase is async only; parents batched only). */
const NOT_THIS_SCHEDULE = Symbol('not this schedule');
type Resolved = (s: RunSettings) => unknown;
const fromSettings = (key: keyof RunSettings): Resolved => (s) => s[key];
const asyncSchedule = (key: 'rebase' | 'rebaseGate' | 'rebaseWait' | 'parentWeighting' | 'heldSlot' | 'speculate'): Resolved => (s) => (s.schedule.kind === 'async' ? s.schedule[key] : NOT_THIS_SCHEDULE);

/** Where the runtime keeps the default of each documented option. */
const RESOLVED: Record<string, Resolved> = {
  'OptimizeConfig.workers': fromSettings('workers'),
  'OptimizeConfig.reflectionMinibatchSize': fromSettings('minibatchSize'),
  'OptimizeConfig.seed': fromSettings('seed'),
  'OptimizeConfig.tieOrder': fromSettings('tieOrder'),
  'OptimizeConfig.stepMinibatches': fromSettings('stepMinibatches'),
  'OptimizeConfig.skipPerfectScore': fromSettings('skipPerfectScore'),
  'OptimizeConfig.perfectScore': fromSettings('perfectScore'),
  'OptimizeConfig.slotPolicy': fromSettings('slotPolicy'),
  'OptimizeConfig.valsetPolicy': fromSettings('valsetPolicy'),
  'OptimizeConfig.valsetPolicy.chunk': () => (typeof race === 'object' ? race.chunk : undefined),
  'OptimizeConfig.valsetPolicy.margin': () => (typeof race === 'object' ? race.margin : undefined),
  'OptimizeConfig.frontType': fromSettings('frontType'),
  'OptimizeConfig.parentSelection': fromSettings('parentSelection'),
  'OptimizeConfig.componentSelection': fromSettings('componentSelection'),
  'OptimizeConfig.acceptance': fromSettings('acceptance'),
  'OptimizeConfig.proposalSelection': fromSettings('proposalSelection'),
  'OptimizeConfig.merge.maxMerges': () => resolveSettings({ ...minimal, merge: {} }).maxMerges,
  'OptimizeConfig.failFast': fromSettings('failFast'),
  'OptimizeConfig.maxConsecutiveFailures': fromSettings('maxConsecutiveFailures'),
  'OptimizeConfig.trackBestOutputs': fromSettings('trackBestOutputs'),
  'OptimizeConfig.spendLastCalls': fromSettings('spendLastCalls'),
  'OptimizeConfig.executor.attempts': () => BULLMQ_EXECUTOR_DEFAULTS.attempts,
  'OptimizeConfig.executor.backoffMs': () => BULLMQ_EXECUTOR_DEFAULTS.backoffMs,
  'OptimizeConfig.executor.noWorkerWarningMs': () => BULLMQ_EXECUTOR_DEFAULTS.noWorkerWarningMs,
  'OptimizeConfig.executor.maxRedisDownMs': () => BULLMQ_EXECUTOR_DEFAULTS.maxRedisDownMs,
  'OptimizeConfig.executor.workerLostMs': () => BULLMQ_EXECUTOR_DEFAULTS.workerLostMs,
  'OptimizeConfig.executor.batchJobs': () => BULLMQ_EXECUTOR_DEFAULTS.batchJobs,
  'Schedule.parents': (s) => (s.schedule.kind === 'batched' ? s.schedule.parents : NOT_THIS_SCHEDULE),
  'Schedule.perParent': (s) => (s.schedule.kind === 'batched' ? s.schedule.perParent : NOT_THIS_SCHEDULE),
  'Schedule.rebase': asyncSchedule('rebase'),
  'Schedule.parentWeighting': asyncSchedule('parentWeighting'),
  'Schedule.rebaseGate': asyncSchedule('rebaseGate'),
  'Schedule.rebaseWait': asyncSchedule('rebaseWait'),
  'Schedule.heldSlot': asyncSchedule('heldSlot'),
  'Schedule.speculate': asyncSchedule('speculate'),
  'BullmqExecutorOptions.queue': () => BULLMQ_EXECUTOR_DEFAULTS.queue,
  'BullmqExecutorOptions.attempts': () => BULLMQ_EXECUTOR_DEFAULTS.attempts,
  'BullmqExecutorOptions.backoffMs': () => BULLMQ_EXECUTOR_DEFAULTS.backoffMs,
  'BullmqExecutorOptions.keepFinishedSeconds': () => BULLMQ_EXECUTOR_DEFAULTS.keepFinishedSeconds,
  'BullmqExecutorOptions.keepFinishedJobs': () => BULLMQ_EXECUTOR_DEFAULTS.keepFinishedJobs,
  'BullmqExecutorOptions.pollMs': () => BULLMQ_EXECUTOR_DEFAULTS.pollMs,
  'BullmqExecutorOptions.noWorkerWarningMs': () => BULLMQ_EXECUTOR_DEFAULTS.noWorkerWarningMs,
  'BullmqExecutorOptions.maxRedisDownMs': () => BULLMQ_EXECUTOR_DEFAULTS.maxRedisDownMs,
  'BullmqExecutorOptions.workerLostMs': () => BULLMQ_EXECUTOR_DEFAULTS.workerLostMs,
  'BullmqExecutorOptions.maxWorkerLosses': () => BULLMQ_EXECUTOR_DEFAULTS.maxWorkerLosses,
  'BullmqExecutorOptions.batchJobs': () => BULLMQ_EXECUTOR_DEFAULTS.batchJobs,
};

/**
 * Defaults stated in words, each with a check of what it says where the runtime has a value for it.
 * The phrase must stay in the comment: reworded, it is read again here.
 */
const PROSE: Record<string, { phrase: string; check: () => void }> = {
  'OptimizeConfig.valset': { phrase: 'Default: trainset', check: () => expect(resolveSettings({ ...minimal, trainset: [1, 2], maxMetricCalls: 2 }).maxMetricCalls).toBe(2) },
  'OptimizeConfig.schedule': { phrase: "Default { kind: 'batched' } (1 x 1)", check: () => expect(settings.batched.schedule).toEqual({ kind: 'batched', parents: 1, perParent: 1 }) },
  'OptimizeConfig.executor': { phrase: 'Default: metric calls run in this process', check: () => expect(minimal.executor).toBeUndefined() },
  'OptimizeConfig.merge': { phrase: 'off by default', check: () => expect(settings.batched.maxMerges).toBe(0) },
  'Schedule': { phrase: "Default { kind: 'batched' }, 1 x 1", check: () => expect(settings.batched.schedule).toEqual({ kind: 'batched', parents: 1, perParent: 1 }) },
  'OptimizeConfig.callbacks': { phrase: 'Default: none', check: () => expect(minimal.callbacks).toBeUndefined() },
  'OptimizeConfig.cacheEvaluation': { phrase: "`'memory'` (the default)", check: () => expect(settings.batched.cacheEvaluation).toBe('memory') },
  'OptimizeConfig.clock': { phrase: 'default the system clock', check: () => {} },
  'OptimizeConfig.reflectionPromptTemplate': { phrase: 'Default: the built-in prompt', check: () => {} },
  'OptimizeConfig.maxCandidateLength': { phrase: 'Default: no limit', check: () => expect(settings.batched.maxCandidateLength).toBeUndefined() },
  'OptimizeConfig.reflectionStrategy': {
    phrase: "Default: the one the hooks select: proposeNewTexts' when given, else the template's when given, else 'built-in'",
    check: () => {
      const propose = () => ({});
      expect([{}, { reflectionPromptTemplate: '<curr_param> <side_info>' }, { proposeNewTexts: propose }].map((c) => (chosenReflectionStrategy(c) as { name: string }).name)).toEqual(['built-in', 'template', 'propose-new-texts']);
    },
  },
  'BullmqExecutorOptions.runId': { phrase: 'Default: a fresh id per executor', check: () => {} },
  'BullmqExecutorOptions.onError': { phrase: 'Default: one process warning per executor', check: () => {} },
  'BullmqExecutorOptions.onWarning': { phrase: 'Default: a process warning', check: () => {} },
};

/** Stated where resolveSettings does not resolve them: the value is applied where the option is read. */
const APPLIED_ELSEWHERE: Record<string, unknown> = {
  // src/run/preparedRun.ts: `config.telemetry === false ? undefined : createRunTelemetry(...)`.
  'OptimizeConfig.telemetry': true,
  // src/evaluation/spending.ts: `options.preRunCostUsd ?? 0`.
  'OptimizeConfig.preRunCostUsd': 0,
};

const SOURCES: Array<[string, string[]]> = [
  ['src/config/optimizeConfig.ts', ['OptimizeConfig']],
  ['src/settingValues.ts', ['Schedule', 'REBASE_POLICIES', 'REBASE_GATES', 'REBASE_WAITS', 'PARENT_WEIGHTINGS', 'TIE_ORDERS', 'STEP_MINIBATCHES', 'SLOT_POLICIES', 'PROPOSAL_SELECTIONS', 'ValsetPolicy']],
  ['src/executors/bullmqExecutor.ts', ['BullmqExecutorOptions']],
];
const members = SOURCES.flatMap(([file, names]) => documentedMembers(file, names));

describe('defaults stated in doc comments', () => {
  it('reads the documented options (the parser finds the declarations)', () => {
    const paths = members.map((m) => m.path);
    expect(paths).toEqual(expect.arrayContaining(['OptimizeConfig.tieOrder', 'OptimizeConfig.executor.attempts', 'Schedule.parents', 'REBASE_GATES', 'BullmqExecutorOptions.pollMs']));
  });

  it('every literal default equals what the runtime resolves, for the batched and the async schedule', () => {
    const wrong: string[] = [];
    const statedPaths = new Set<string>();
    for (const { path, doc } of members) {
      for (const stated of statedDefaults(path, doc).stated) {
        statedPaths.add(stated.path);
        const resolve = RESOLVED[stated.path];
        if (!resolve) {
          if (stated.path in APPLIED_ELSEWHERE) {
            if (APPLIED_ELSEWHERE[stated.path] !== stated.batched) wrong.push(`${stated.path}: doc says "${stated.phrase}", the runtime applies ${JSON.stringify(APPLIED_ELSEWHERE[stated.path])}`);
            continue;
          }
          wrong.push(`${stated.path}: doc says "${stated.phrase}" but the test knows no runtime default for it (add it to RESOLVED)`);
          continue;
        }
        for (const schedule of ['batched', 'async'] as const) {
          const actual = resolve(settings[schedule]);
          if (actual === NOT_THIS_SCHEDULE) continue;
          if (actual !== stated[schedule]) wrong.push(`${stated.path}: doc says "${stated.phrase}", the runtime resolves ${JSON.stringify(actual)} (${schedule})`);
        }
      }
    }
    expect(wrong).toEqual([]);
    // No entry of RESOLVED is left without a doc comment stating its default.
    expect(Object.keys(RESOLVED).filter((path) => !statedPaths.has(path))).toEqual([]);
  });

  it('a default stated in words is listed, with its phrase, and checked where the runtime has a value', () => {
    const unlisted: string[] = [];
    for (const { path, doc } of members) {
      if (statedDefaults(path, doc).unread <= 0) continue;
      const prose = PROSE[path];
      if (!prose || !doc.includes(prose.phrase)) unlisted.push(`${path}: "${doc}"`);
      else prose.check();
    }
    expect(unlisted).toEqual([]);
  });

  it('catches a wrong default: the old tieOrder and stepMinibatches comments fail', () => {
    const old = statedDefaults('OptimizeConfig.tieOrder', "Which of two equal-mean candidates dominated removal keeps. Default 'newest-survives' (the reference's order) for the batched schedule").stated;
    expect(old.map((s) => [s.batched, settings.batched.tieOrder])).toEqual([['newest-survives', 'reference']]);
    expect(statedDefaults('OptimizeConfig.stepMinibatches', "Default 'fresh' (batched), 'fresh' (async)").stated[0]).toMatchObject({ batched: 'fresh', async: 'fresh' });
    expect(settings.batched.stepMinibatches).toBe('sliding');
  });
});
