// Text from language models and servers is printed on a terminal: escape sequences in it could
// recolour, retitle or rewrite the screen (or the lines above). Everything the CLI prints that
// may carry such text passes through here; newlines and tabs stay, other controls go.

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), other two-byte escapes, then any control left
// (C0 but \t and \n, DEL, C1: U+009B is an 8-bit CSI to some terminals).
const ESCAPE_SEQUENCES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -~]?/g;
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/** `text` with terminal escape sequences and control characters removed (newlines and tabs kept). */
export function terminalSafe(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, '').replace(CONTROLS, '');
}

/** JSON for one line of stdout: JSON.stringify leaves DEL and C1 characters raw; this escapes them too. */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
