// Every ```ts / ```typescript block of README.md and of every Markdown file under docs/ (found by
// walking the folder, so a guide added later is covered without touching this file) compiles
// as its own module against the package as a user imports it: each entry of the package
// (`gepa-actors`, `gepa-actors/demo`, ...) is mapped to its source. A renamed option then fails this test instead of the reader. A block that is a
// fragment on purpose says so on its first line (`// fragment: why`) and is counted, not compiled.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { markdownFiles, REPO_ROOT as ROOT } from './support/markdownFiles.js';
import { packageEntrySources } from './support/packageEntries.js';

const FRAGMENT_MARKER = /^\s*\/\/ fragment:/;
/** Deliberate fragments allowed in all the docs together; each one needs a reason to exist. */
const MAX_FRAGMENTS = 0;

interface CodeBlock {
  file: string;
  line: number;
  code: string;
}

/** The fenced blocks whose info string starts with ts or typescript (a fence may be indented). */
function typeScriptBlocks(file: string): CodeBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)\b/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.trimStart().startsWith(fence!); j++) body.push(lines[j]!.slice(indent!.length));
    blocks.push({ file: relative(ROOT, file), line: i + 1, code: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** Each entry of package.json "exports" mapped to its source, as a user's import resolves it here. */
const ENTRY_PATHS = Object.fromEntries(Object.entries(packageEntrySources()).map(([specifier, source]) => [specifier, [source]]));

/** Compiles each source as its own module of a virtual folder at the root (so package.json's
 * "type": "module" applies), and returns each one's diagnostics as readable lines. */
function compile(sources: readonly string[]): Array<Array<{ line: number; message: string }>> {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error('tsconfig.json could not be read');
  const options: ts.CompilerOptions = {
    ...config.options,
    noEmit: true,
    noUnusedLocals: false,
    paths: ENTRY_PATHS,
  };
  const names = sources.map((_, i) => join(ROOT, '.doc-blocks', `block${i}.ts`));
  const virtual = new Map(names.map((name, i) => [name, sources[i]!]));
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (name) => virtual.has(name) || ts.sys.fileExists(name);
  host.readFile = (name) => virtual.get(name) ?? readFile(name);
  host.getSourceFile = (name, language, onError) => {
    const text = virtual.get(name);
    return text === undefined ? getSourceFile(name, language, onError) : ts.createSourceFile(name, text, language, true);
  };
  const program = ts.createProgram(names, options, host);
  return names.map((name) => {
    const file = program.getSourceFile(name)!;
    const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    return diagnostics.map((d) => ({
      line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }));
  });
}

const blocks = markdownFiles().flatMap(typeScriptBlocks);
const fragments = blocks.filter((block) => FRAGMENT_MARKER.test(block.code));
const compiled = blocks.filter((block) => !FRAGMENT_MARKER.test(block.code));

describe('TypeScript blocks in README.md and docs/', () => {
  it('finds the blocks of the README and of every guide', () => {
    expect(compiled.length).toBeGreaterThan(0);
    expect(blocks.some((block) => block.file === 'README.md')).toBe(true);
  });

  it(`marks at most ${MAX_FRAGMENTS} blocks as fragments (${fragments.length} now)`, () => {
    const where = fragments.map((block) => `${block.file}:${block.line}`).join(', ');
    expect(fragments.length, `fragments: ${where}`).toBeLessThanOrEqual(MAX_FRAGMENTS);
  });

  it('compiles every other block as its own module against gepa-actors', () => {
    // A renamed option in a copy of the first block that sets maxMetricCalls: the same compile
    // must report it, or this test could not tell a broken block from a good one.
    const sample = compiled.find((block) => /\bmaxMetricCalls:/.test(block.code))!;
    const renamed = sample.code.replace(/\bmaxMetricCalls:/, 'maxMetricCall:');
    const results = compile([...compiled.map((block) => block.code), renamed]);
    const renamedErrors = results.pop()!;
    expect(renamedErrors.map((error) => error.message).join('\n')).toMatch(/'maxMetricCall'/);
    const failures = compiled.flatMap((block, i) => results[i]!.map((error) => `${block.file}:${block.line + error.line}: ${error.message}`));
    expect(failures).toEqual([]);
  });
});
