// Loads the user's adapter in a worker process: functions do not travel through Redis, so a
// worker imports the ES module at a path and takes one of its exports. Failures name the path
// and the exports that do exist, since this is the first thing a user gets wrong.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Adapter } from '../types.js';
import { errorMessage } from '../errors/errorMessage.js';

export class AdapterLoadError extends Error {
  override name = 'AdapterLoadError';
}

/**
 * `./adapter.js#myAdapter` -> path and export name; the export defaults to `adapter`. `field`
 * names the spec in errors: the worker's flag, or the run config's field.
 */
export function parseAdapterSpec(spec: string, field = '--adapter'): { adapterPath: string; exportName: string } {
  const hash = spec.lastIndexOf('#');
  const adapterPath = hash < 0 ? spec : spec.slice(0, hash);
  const exportName = hash < 0 ? 'adapter' : spec.slice(hash + 1);
  if (adapterPath === '') throw new AdapterLoadError(`${field}: no module path in "${spec}"`);
  if (exportName === '') throw new AdapterLoadError(`${field}: no export name after '#' in "${spec}"`);
  return { adapterPath, exportName };
}

export async function loadAdapter(adapterPath: string, exportName = 'adapter'): Promise<Adapter<unknown>> {
  const file = resolve(adapterPath);
  if (!existsSync(file)) throw new AdapterLoadError(`adapter module not found: ${file}`);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new AdapterLoadError(`cannot import the adapter module ${file}: ${errorMessage(error)}`);
  }
  const adapter = module[exportName] as Partial<Adapter<unknown>> | undefined;
  if (adapter === undefined) {
    const names = Object.keys(module).join(', ') || '(none)';
    throw new AdapterLoadError(`${file} has no export "${exportName}"; its exports: ${names}`);
  }
  if (typeof adapter !== 'object' || adapter === null || typeof adapter.evaluate !== 'function') {
    throw new AdapterLoadError(`export "${exportName}" of ${file} is not an adapter (an object with an evaluate(candidate, example, ctx) method)`);
  }
  return adapter as Adapter<unknown>;
}
