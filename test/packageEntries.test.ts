// The package's entries, as the TypeScript compiler sees them: a small root (at most 80 names,
// types included) and subpath entries per concern, each one module page in TypeDoc; every name
// the shared contract promises reachable from the entry this table gives; the demo tasks out of
// the root's module graph. The entries are read from package.json "exports", the one list of them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { packageEntrySources } from './support/packageEntries.js';

const ROOT = join(import.meta.dirname, '..');
/** Import specifier ('gepa-actors', 'gepa-actors/models', ...) -> its source module. */
const ENTRIES = packageEntrySources();

/** Where each name of shared/CONTRACT.md is imported from. */
const CONTRACT_NAMES: Record<string, string[]> = {
  'gepa-actors': [
    'optimize', 'optimizerMachine', 'optimizeAnything', 'log', 'image', 'stoppers', 'proposerMachine', 'evaluatorActor',
    'Candidate', 'Evaluation', 'EvalContext', 'Adapter', 'LmReply', 'LanguageModel', 'Schedule', 'OptimizeConfig', 'OptimizeResult',
    'ProposalRecord', 'StepMinibatches', 'StopReason', 'Stopper', 'StopView', 'GepaCallbacks', 'FailureKind',
    'ConfigError', 'MissingDependencyError', 'LanguageModelError', 'RunDirectoryError',
  ],
  'gepa-actors/models': [
    'createOpenAIChatModel', 'createOpenAILanguageModel', 'createResponseCache', 'createLocalChatModel', 'createLocalLanguageModel',
    'disposeLocalModels', 'LocalModelError', 'createAiSdkChatModel', 'createAiSdkLanguageModel',
  ],
  'gepa-actors/adapters': ['createChatAdapter', 'loadJsonlDataset', 'createAiSdkAdapter'],
  'gepa-actors/bullmq': ['RedisUnavailableError', 'createBullmqExecutor', 'runWorker'],
  'gepa-actors/report': ['observeRun', 'summarizeStaleness', 'formatStaleness', 'renderReport', 'writeReport'],
  'gepa-actors/runtime-model': ['recommendSchedule', 'predictWallClock'],
  'gepa-actors/storage': ['ScheduleDecision'],
  'gepa-actors/embedding': ['SystemicFailure', 'ProposalUpdate', 'ProposerInput', 'ReplyTo', 'MetricCallExecutor'],
  'gepa-actors/testing': ['steppingClock', 'runOnSimulatedClock'],
  'gepa-actors/workbench': ['serveWorkbench'],
};

let program: ts.Program;
let exportsOf: (specifier: string) => string[];

beforeAll(() => {
  program = ts.createProgram(Object.values(ENTRIES), { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  exportsOf = (specifier) => {
    const file = program.getSourceFile(ENTRIES[specifier] as string);
    if (!file) throw new Error(`no source for ${specifier}`);
    return checker.getExportsOfModule(checker.getSymbolAtLocation(file) as ts.Symbol).map((symbol) => symbol.name);
  };
}, 60_000);

/** Every module the root entry reaches through its imports, type-only ones included. */
function reachedFromRoot(): Set<string> {
  const seen = new Set<string>();
  const visit = (fileName: string) => {
    if (seen.has(fileName) || fileName.includes('/node_modules/')) return;
    seen.add(fileName);
    const file = program.getSourceFile(fileName) as ts.SourceFile;
    for (const specifier of file.statements.flatMap((s) => ((ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier) ? [s.moduleSpecifier] : []))) {
      const resolved = ts.resolveModuleName(specifier.text, fileName, program.getCompilerOptions(), ts.sys).resolvedModule;
      if (resolved) visit(resolved.resolvedFileName);
    }
    // import('...') in types and code
    for (const [, spec] of file.text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g)) {
      const resolved = ts.resolveModuleName(spec as string, fileName, program.getCompilerOptions(), ts.sys).resolvedModule;
      if (resolved) visit(resolved.resolvedFileName);
    }
  };
  visit(ENTRIES['gepa-actors'] as string);
  return seen;
}

describe('the package entries', () => {
  it('the root exports at most 80 names, types included', () => {
    const names = exportsOf('gepa-actors');
    expect(names.length).toBeGreaterThan(40);
    expect(names.length).toBeLessThanOrEqual(80);
  });

  it('has at least four subpath entries, each a module of src/entries/ (which no module of ours imports) named for TypeDoc as it is imported', () => {
    const subpaths = Object.keys(ENTRIES).filter((name) => name !== 'gepa-actors');
    expect(subpaths.length).toBeGreaterThanOrEqual(4);
    expect(ENTRIES['gepa-actors']).toBe(join(ROOT, 'src/index.ts'));
    for (const name of subpaths) {
      expect(ENTRIES[name]).toMatch(/\/src\/entries\/[A-Za-z]+\.ts$/);
      expect(exportsOf(name).length, name).toBeGreaterThan(0);
    }
    for (const [name, file] of Object.entries(ENTRIES)) expect(readFileSync(file, 'utf8'), file).toContain(` * @module ${name}\n`);
  });

  it('gives each name one entry', () => {
    const entryOf = new Map<string, string>();
    const twice: string[] = [];
    for (const specifier of Object.keys(ENTRIES)) {
      for (const name of exportsOf(specifier)) {
        if (entryOf.has(name)) twice.push(`${name}: ${entryOf.get(name)} and ${specifier}`);
        entryOf.set(name, specifier);
      }
    }
    expect(twice).toEqual([]);
  });

  it("keeps every name of the shared contract reachable, from the entry this file's table gives", () => {
    const missing = Object.entries(CONTRACT_NAMES).flatMap(([specifier, names]) => names.filter((name) => !exportsOf(specifier).includes(name)).map((name) => `${name} from ${specifier}`));
    expect(missing).toEqual([]);
  });

  it("keeps the demo tasks, the report and the BullMQ worker out of the root's module graph", () => {
    const reached = [...reachedFromRoot()].map((file) => file.slice(ROOT.length + 1));
    expect(reached.length).toBeGreaterThan(50);
    expect(reached.filter((file) => /^src\/(demo|report|worker|cli|workbench)\//.test(file))).toEqual([]);
  });
});
