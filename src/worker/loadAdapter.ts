// Loads the user's adapter in a worker process: functions do not travel through Redis, so a
// worker imports the ES module at a path and takes one of its exports (the run config's adapter
// and optimizeAnything evaluator load the same way). Failures name the path
// and the exports that do exist, since this is the first thing a user gets wrong.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Adapter } from '../gepa/core/adapter.js';
import { errorMessage } from '../errors/errorMessage.js';

export class AdapterLoadError extends Error {
  override name = 'AdapterLoadError';
}

/**
 * `./adapter.js#myAdapter` -> path and export name; the export defaults to `defaultExport`
 * (`adapter`; an evaluator's is `evaluate`). `field` names the spec in errors: the worker's flag,
 * or the run config's field.
 */
export function parseAdapterSpec(spec: string, field = '--adapter', defaultExport = 'adapter'): { adapterPath: string; exportName: string } {
  const hash = spec.lastIndexOf('#');
  const adapterPath = hash < 0 ? spec : spec.slice(0, hash);
  const exportName = hash < 0 ? defaultExport : spec.slice(hash + 1);
  if (adapterPath === '') throw new AdapterLoadError(`${field}: no module path in "${spec}"`);
  if (exportName === '') throw new AdapterLoadError(`${field}: no export name after '#' in "${spec}"`);
  return { adapterPath, exportName };
}

/** Each module's modification time when this process first imported it. */
const importedAt = new Map<string, number>();

/**
 * The URL to import a module from: its own, or, once the file was edited since this process
 * imported it (the user fixed their evaluator, then resumed in the same process), one keyed by its
 * modification time, so the edit is what runs; an unchanged module comes from the import cache.
 */
function moduleUrl(file: string): string {
  const href = pathToFileURL(file).href;
  const mtime = statSync(file).mtimeMs;
  const first = importedAt.get(file);
  if (first === undefined) importedAt.set(file, mtime);
  return first === undefined || first === mtime ? href : `${href}?mtime=${mtime}`;
}

/** The export `exportName` of the ES module at `modulePath`; `what` names the module in errors ("adapter", "evaluator"). */
export async function loadModuleExport(modulePath: string, exportName: string, what: string): Promise<unknown> {
  const file = resolve(modulePath);
  if (!existsSync(file)) throw new AdapterLoadError(`${what} module not found: ${file}`);
  let module: Record<string, unknown>;
  try {
    module = (await import(moduleUrl(file))) as Record<string, unknown>;
  } catch (error) {
    throw new AdapterLoadError(`cannot import the ${what} module ${file}: ${errorMessage(error)}`);
  }
  if (!(exportName in module)) {
    const names = Object.keys(module).join(', ') || '(none)';
    throw new AdapterLoadError(`${file} has no export "${exportName}"; its exports: ${names}`);
  }
  return module[exportName];
}

export async function loadAdapter(adapterPath: string, exportName = 'adapter'): Promise<Adapter<unknown>> {
  const adapter = (await loadModuleExport(adapterPath, exportName, 'adapter')) as Partial<Adapter<unknown>> | undefined;
  if (typeof adapter !== 'object' || adapter === null || typeof adapter.evaluate !== 'function') {
    throw new AdapterLoadError(`export "${exportName}" of ${resolve(adapterPath)} is not an adapter (an object with an evaluate(candidate, example, ctx) method)`);
  }
  return adapter as Adapter<unknown>;
}

/** What each kind of optimizeAnything evaluator is, for the message when an export is not one. */
const EVALUATOR_SHAPES = {
  evaluator: 'an evaluator (a function (candidate, example, ctx) => number | { score, sideInfo })',
  batchEvaluator: 'a batchEvaluator (a function (candidate, examples, ctx) => one number or { score, sideInfo } per example)',
} as const;

/** optimizeAnything's evaluator (or batchEvaluator): a function export (default `evaluate`), loaded as an adapter is. */
export async function loadEvaluator(modulePath: string, exportName = 'evaluate', kind: keyof typeof EVALUATOR_SHAPES = 'evaluator'): Promise<(...args: never[]) => unknown> {
  const evaluator = await loadModuleExport(modulePath, exportName, kind);
  if (typeof evaluator !== 'function') {
    throw new AdapterLoadError(`export "${exportName}" of ${resolve(modulePath)} is not ${EVALUATOR_SHAPES[kind]}`);
  }
  return evaluator as (...args: never[]) => unknown;
}
