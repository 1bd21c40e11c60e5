// Where the reference bridge finds gepa 0.1.4: GEPA_SRC (a checkout's src/ folder) when set,
// else the PyPI release pinned here, installed with pip into a git-ignored folder of the project
// and reused once there. `npx tsx bench/reference/gepaInstall.ts` installs it (.ci/setup-gepa.sh
// runs it for the differential tests); the bench installs it on first use.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const GEPA_VERSION = '0.1.4';
/** The pip --target folder (git-ignored: `bench/reference/.gepa-*`). */
export const GEPA_DIR = fileURLToPath(new URL(`./.gepa-${GEPA_VERSION}`, import.meta.url));
const installed = () => existsSync(`${GEPA_DIR}/gepa/__init__.py`);

/** The PYTHONPATH entry holding gepa: GEPA_SRC, or the installed release (an error says how to install it). */
export function gepaPythonPath(): string {
  const override = process.env.GEPA_SRC;
  if (override) return override;
  if (!installed()) throw new Error(`gepa ${GEPA_VERSION} is not installed in ${GEPA_DIR}: run \`npx tsx bench/reference/gepaInstall.ts\` (or bash .ci/setup-gepa.sh), or set GEPA_SRC to a checkout's src/ folder`);
  return GEPA_DIR;
}

/** pip install gepa==<pinned> --no-deps --target GEPA_DIR, unless already there; returns the folder. */
export function installGepa(): string {
  if (installed()) return GEPA_DIR;
  const pip = (extra: string[]) =>
    spawnSync('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--target', GEPA_DIR, ...extra, `gepa==${GEPA_VERSION}`], { stdio: 'inherit' });
  // A system Python may refuse pip without this flag (PEP 668); --target never touches its packages.
  if (pip([]).status !== 0 && pip(['--break-system-packages']).status !== 0) {
    throw new Error(`could not install gepa==${GEPA_VERSION} with pip (python3 -m pip) into ${GEPA_DIR}`);
  }
  if (!installed()) throw new Error(`pip reported success but ${GEPA_DIR}/gepa is missing`);
  return GEPA_DIR;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) console.log(`gepa ${GEPA_VERSION} in ${installGepa()}`);
