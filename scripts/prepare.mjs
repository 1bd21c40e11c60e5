// npm runs `prepare` after `npm install` / `npm ci` in a clone: it builds dist/ when the dev
// dependencies (TypeScript) are there, and otherwise says how to build instead of failing, since
// `npm ci --omit=dev` installs what running needs and no compiler. (A tarball from the registry
// or `npm pack` ships dist/ already built; prepare does not run when it is installed.)
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
try {
  require.resolve('typescript/package.json');
} catch {
  console.error('gepa-actors: TypeScript is not installed (npm ci --omit=dev?), so dist/ was not built. To build it: npm ci && npm run build');
  process.exit(0);
}
// Through the npm that runs us (npm_execpath), so that this works wherever npm is not on PATH as `npm`.
const npm = process.env.npm_execpath;
execFileSync(npm ? process.execPath : 'npm', [...(npm ? [npm] : []), 'run', 'build'], { stdio: 'inherit' });
