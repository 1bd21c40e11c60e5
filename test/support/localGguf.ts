// Where the real-model tests find Gemma 3 270M: GEPA_TEST_GGUF, else the file .ci/setup-gemma.sh
// assembles into the git-ignored .models/. Absent outside CI, those tests skip; in CI
// (CI=true) an absent model is a failure, so a broken setup cannot pass as green.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const GGUF_PATH = process.env.GEPA_TEST_GGUF || join(import.meta.dirname, '..', '..', '.models', 'gemma-3-270m-q4_k_m.gguf');

const inCi = process.env.CI === 'true';
export const hasGguf = existsSync(GGUF_PATH);

if (!hasGguf && inCi) {
  throw new Error(`CI=true but the real-model test's GGUF is missing at ${GGUF_PATH}: .ci/setup-gemma.sh should have installed it`);
}

/** `describe.skipIf(skipRealModel)`: true only outside CI with no model file. */
export const skipRealModel = !hasGguf;

