// facts.json of a run directory: the figures the command computed beside the run for its report
// (the demo's held-out test score), so that a reader of the directory (`gepa-actors watch`) shows
// the report's cards, all of them, without the process that wrote it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ReportInput } from './renderReport.js';

export const FACTS_FILE = 'facts.json';

const factsSchema = z.array(z.object({ label: z.string(), value: z.string(), sub: z.string().optional() }));

export function writeReportFacts(dir: string, facts: NonNullable<ReportInput['facts']>): void {
  writeFileSync(join(dir, FACTS_FILE), `${JSON.stringify(facts, null, 2)}\n`);
}

/** The directory's facts.json, or undefined when it has none or it cannot be read. */
export function readReportFacts(dir: string): ReportInput['facts'] | undefined {
  try {
    const parsed = factsSchema.safeParse(JSON.parse(readFileSync(join(dir, FACTS_FILE), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
