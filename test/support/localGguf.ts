// Where the real-model tests find Gemma 3 270M: GEPA_TEST_GGUF, else the file .ci/setup-gemma.sh
// assembles into the git-ignored .models/ (test/support/testPrograms.ts). Absent outside CI, those
// tests skip; in CI (CI=true) an absent model is a failure, so a broken setup cannot pass as green.
import { ggufPath, haveProgram } from './testPrograms.js';

export const GGUF_PATH = ggufPath();

/** `describe.skipIf(skipRealModel)`: true only outside CI with no model file (under CI=true, importing this throws). */
export const skipRealModel = !haveProgram('model');
