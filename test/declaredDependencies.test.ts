// package.json says what the shipped code (src/ and machines/) imports, and nothing else: every
// package in `dependencies` is imported by it, every package it imports is declared, and an
// optional peer (not installed for a library user) is reached only by import() or `import type`,
// so that loading gepa-actors never needs it.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/** How a module reaches a package: a static value import loads it with the module. */
type ImportKind = 'static' | 'dynamic' | 'type';

interface PackageImport {
  file: string;
  specifier: string;
  kind: ImportKind;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

function importsOf(file: string): PackageImport[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: PackageImport[] = [];
  const add = (literal: ts.Node | undefined, kind: ImportKind) => {
    if (literal && ts.isStringLiteralLike(literal)) found.push({ file: relative(ROOT, file), specifier: literal.text, kind });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      add(node.moduleSpecifier, typeOnly ? 'type' : 'static');
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly ? 'type' : 'static');
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, 'type');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], 'dynamic');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const BUILTINS = new Set(builtinModules);

/** 'node:fs' and './x.js' are no package; '@scope/name/sub' is '@scope/name', 'name/sub' is 'name'. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
  return BUILTINS.has(name) ? undefined : name;
}

const shipped = ['src', 'machines'].flatMap((dir) => sourceFiles(join(ROOT, dir))).flatMap(importsOf);
const packageImports = shipped.flatMap((entry) => {
  const name = packageOf(entry.specifier);
  return name === undefined ? [] : [{ ...entry, name }];
});
const dependencies = Object.keys(pkg.dependencies ?? {});
const optionalPeers = Object.keys(pkg.peerDependencies ?? {}).filter((name) => pkg.peerDependenciesMeta?.[name]?.optional === true);

describe('declared dependencies', () => {
  it('the scan finds the shipped imports it must see (a broken scan cannot pass)', () => {
    expect(packageImports).toContainEqual(expect.objectContaining({ file: 'machines/optimizer.machine.ts', name: 'xstate', kind: 'static' }));
    expect(packageImports).toContainEqual(expect.objectContaining({ file: 'src/executors/bullmqExecutor.ts', name: 'bullmq', kind: 'dynamic' }));
    expect(packageImports).toContainEqual(expect.objectContaining({ file: 'src/executors/bullmqExecutor.ts', name: 'bullmq', kind: 'type' }));
  });

  it('every package in dependencies is imported by shipped code', () => {
    const imported = new Set(packageImports.map((entry) => entry.name));
    expect(dependencies.filter((name) => !imported.has(name))).toEqual([]);
  });

  it('every package shipped code imports is a dependency or a peer dependency', () => {
    const declared = new Set([...dependencies, ...Object.keys(pkg.peerDependencies ?? {})]);
    const undeclared = packageImports.filter((entry) => !declared.has(entry.name)).map((entry) => `${entry.file}: ${entry.specifier}`);
    expect(undeclared).toEqual([]);
  });

  it('an optional peer is never a dependency and is never imported statically for its values', () => {
    expect(optionalPeers.filter((name) => dependencies.includes(name))).toEqual([]);
    const loadedWithTheModule = packageImports
      .filter((entry) => optionalPeers.includes(entry.name) && entry.kind === 'static')
      .map((entry) => `${entry.file}: ${entry.specifier}`);
    expect(loadedWithTheModule).toEqual([]);
  });
});
