// A JSON-lines file a run appends to as it goes (inspect.jsonl, activity.jsonl): one record a line,
// replacing what a previous process wrote. A write error is kept and thrown by close(), so a
// full disk ends the record, not the run.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

export interface JsonLinesFile {
  /** Appends one record as a line (nothing more once writing failed). */
  write(record: unknown): void;
  /** Flushes and closes the file; throws the write error, if any. */
  close(): Promise<void>;
}

export function createJsonLinesFile(path: string): JsonLinesFile {
  const file = createWriteStream(path, { flags: 'w' });
  let failure: unknown;
  file.on('error', (error) => {
    failure = error;
  });
  return {
    write(record) {
      if (failure === undefined) file.write(`${JSON.stringify(record)}\n`);
    },
    async close() {
      if (!file.closed) {
        file.end();
        if (failure === undefined) await once(file, 'close');
      }
      if (failure !== undefined) throw failure;
    },
  };
}
