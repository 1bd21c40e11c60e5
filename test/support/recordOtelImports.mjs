// Preloaded with `node --import` by test/otel.test.ts: records every @opentelemetry module the
// process resolves, one URL a line, into the file GEPA_IMPORT_LOG names (the hooks run in their
// own thread, so a file is how they report).
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes('/@opentelemetry/')) appendFileSync(process.env.GEPA_IMPORT_LOG, resolved.url + '\\n');
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
