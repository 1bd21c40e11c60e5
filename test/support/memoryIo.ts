// A CliIo held in memory for in-process CLI tests: stdout and stderr collected as text, a
// private environment and working directory. onStderr lets a test react to progress lines.
import { Writable } from 'node:stream';
import type { CliIo } from '../../src/cli/cliIo.js';

export interface MemoryIo extends CliIo {
  out(): string;
  err(): string;
}

export function memoryIo(
  options: { env?: Record<string, string | undefined>; cwd?: string; today?: () => Date; onStderr?: (text: string) => void } = {},
): MemoryIo {
  let out = '';
  let err = '';
  const io: MemoryIo = {
    stdout: {
      write(text: string) {
        out += text;
        return true;
      },
    },
    stderr: new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        const text = chunk.toString();
        err += text;
        options.onStderr?.(text);
        callback();
      },
    }),
    env: { CI: 'true', ...options.env },
    cwd: options.cwd ?? process.cwd(),
    ...(options.today ? { today: options.today } : {}),
    out: () => out,
    err: () => err,
  };
  return io;
}
