// TypeDoc (`npm run docs`, part of `npm test`; warnings are errors): one module page per package
// entry, read from package.json 'exports', the one list of the entries (each built file's source
// is the same path under src/ with .ts), so that adding an entry is one line there.
import { readFileSync } from 'node:fs';

const { exports: entries } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const entryPoints = Object.values(entries).map((target) => target.import.replace(/^\.\/dist\//, './').replace(/\.js$/, '.ts'));

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  entryPoints,
  tsconfig: 'tsconfig.build.json',
  // `npm test` runs tsc over the whole project (tsconfig.json, a superset of the build's files)
  // just before; checking the same sources again here cost about a quarter of TypeDoc's time.
  skipErrorChecking: true,
  out: 'docs/api',
  name: 'gepa-actors',
  readme: 'none',
  excludePrivate: true,
  excludeInternal: true,
  treatWarningsAsErrors: true,
  validation: {
    notExported: true,
    invalidLink: true,
    invalidPath: true,
    rewrittenLink: true,
    notDocumented: true,
    unusedMergeModuleWith: true
  },
  requiredToBeDocumented: [
    'Enum',
    'EnumMember',
    'Variable',
    'Function',
    'Class',
    'Interface',
    'Property',
    'Method',
    'Accessor',
    'TypeAlias'
  ],
  plugin: [
    './scripts/typedocOpaqueMachines.mjs'
  ],
  intentionallyNotExported: [
    'CallOrigin',
    'CallRecord',
    'ChildMessage',
    'Ctx',
    'DatasetFingerprint',
    'EvaluateReply',
    'EvaluationCachePolicy',
    'EvaluationTarget',
    'FailureKind',
    'FieldValue',
    'Jitter',
    'ManagesSlots',
    'MinibatchOutcome',
    'NamedModel',
    'OptionalIntegration',
    'PreparedRun',
    'PricedExecutor',
    'ProblemKind',
    'Proposal',
    'ProposalSpend',
    'ProposeReply',
    'Refinement',
    'ReflectReply',
    'SlotAwareContext',
    'SlotAwareLanguageModel',
    'TokenCounts',
    'WorkKind',
    'WorkerCommandIo'
  ],
  disableSources: true
};
