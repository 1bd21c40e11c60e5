// A child process for the shared 'disk' cache: keeps `count` evaluations (of candidate `label`,
// each with feedback far longer than a pipe's atomic write) in the cache folder argv[2], starting
// the moment "go" arrives on stdin, then prints "done". Two of them append to one file at once.
import { evaluationCacheDir } from '../../src/storage/evaluationCacheDir.js';

const [dir, label, countArg] = process.argv.slice(2) as [string, string, string];
const count = Number(countArg);
const examples = Array.from({ length: count }, (_, i) => ({ id: i }));
const store = evaluationCacheDir(dir, { adapter: 'writer-test' }, examples);
process.stdin.once('data', () => {
  for (let i = 0; i < count; i++) store.keep(label, i, false, 0, { score: i / count, feedback: `${label} ${i} `.repeat(1000) });
  process.stdout.write('done\n');
  process.exit(0);
});
process.stdout.write('ready\n');
