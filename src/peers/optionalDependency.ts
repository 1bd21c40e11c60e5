// The integrations a library user may not need (BullMQ and its Redis driver, the AI SDK,
// node-llama-cpp, the OTLP exporter) are optional peer dependencies: they are not installed with
// gepa-actors, nothing imports them when the package loads, and the one path that needs them
// imports them on first use. A missing one is reported by name, with the command that installs
// it, before any work starts. At the top of src/: executors/, lm/, telemetry/ and worker/ use it.
// Room peers/ (below every room): any room may import it; it imports none.
import { createRequire } from 'node:module';

/** A feature and the packages it needs beside gepa-actors. */
export interface OptionalIntegration {
  /** As the error names it: "the bullmq executor". */
  feature: string;
  packages: readonly string[];
}

export const BULLMQ_EXECUTOR: OptionalIntegration = { feature: 'the bullmq executor', packages: ['bullmq', 'ioredis'] };
export const BULLMQ_WORKER: OptionalIntegration = { feature: 'the gepa-actors worker', packages: ['bullmq', 'ioredis'] };

/** A feature was used whose packages are not installed; the message says what to install. */
export class MissingDependencyError extends Error {
  /** 'MissingDependencyError'. */
  override name = 'MissingDependencyError';
  /** The feature that was used, e.g. 'the bullmq executor'. */
  readonly feature: string;
  /** Every package the feature needs (installing all of them is the fix). */
  readonly packages: readonly string[];
  /** The ones that could not be found. */
  readonly missing: readonly string[];

  constructor(integration: OptionalIntegration, missing: readonly string[], options?: { cause?: unknown }) {
    super(`${integration.feature} needs \`npm install ${integration.packages.join(' ')}\` (not found: ${missing.join(', ')})`, options);
    this.feature = integration.feature;
    this.packages = integration.packages;
    this.missing = missing;
  }
}

// Resolved from this file, as import() here would be: in a user's project that is their node_modules.
const resolver = createRequire(import.meta.url);

function isInstalled(name: string): boolean {
  try {
    resolver.resolve(name);
    return true;
  } catch (error) {
    // A package whose exports offer no `require` entry is there all the same.
    return (error as { code?: unknown }).code !== 'MODULE_NOT_FOUND';
  }
}

/** The integration's packages that cannot be found from here. */
export function missingPackages(integration: OptionalIntegration): string[] {
  return integration.packages.filter((name) => !isInstalled(name));
}

/** Throws MissingDependencyError unless every package of the integration is installed. */
export function checkInstalled(integration: OptionalIntegration): void {
  const missing = missingPackages(integration);
  if (missing.length > 0) throw new MissingDependencyError(integration, missing);
}

/**
 * `load` is the import() of one of the integration's packages: when it fails because a package
 * is missing, the failure becomes a MissingDependencyError; any other failure is passed on.
 */
export async function importIntegration<T>(integration: OptionalIntegration, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = missingPackages(integration);
    if (missing.length > 0) throw new MissingDependencyError(integration, missing, { cause: error });
    throw error;
  }
}
