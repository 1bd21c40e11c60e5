// Keeps credentials out of every message an endpoint's failure produces. A server may echo the
// request (headers included) in an error body, and that text travels into feedback, reflection
// prompts, log.jsonl, stderr and --json stdout; so every message built from an HTTP reply passes
// through one redactor, made from the endpoint's key and base URL, before it leaves src/lm.

const REDACTED = '[redacted]';
/** Keys this short are placeholders ("not-needed", "x"): replacing them would garble ordinary words. */
const MIN_SECRET_LENGTH = 8;

// `Authorization: Bearer <token>` in any quoting; header names such as `api-key`, `x-api-key`,
// `apiKey`, followed by a separator and the value.
const BEARER = /\b(Bearer\s+)(?!\[redacted\])[^\s"',;}\]]+/gi;
const KEY_FIELD = /\b((?:x-)?api[-_]?key\\?["']?\s*[:=]\s*\\?["']?)(?!\[redacted\])[^\s"',;}\]\\]+/gi;
// scheme://user:password@host -> scheme://***@host
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"']+@/gi;

export type Redact = (text: string) => string;

/** A base URL fit to print: its user and password, if any, masked. */
export function maskUrlCredentials(url: string): string {
  return url.replace(URL_CREDENTIALS, '$1***@');
}

/** Redacts `secrets` (the API key, the base URL's password) and credential-shaped patterns. */
export function createSecretRedactor(options: { apiKey?: string; baseURL?: string }): Redact {
  const secrets = new Set<string>();
  if (options.apiKey && options.apiKey.length >= MIN_SECRET_LENGTH) secrets.add(options.apiKey);
  if (options.baseURL && URL.canParse(options.baseURL)) {
    const { username, password } = new URL(options.baseURL);
    for (const part of [password, username, decodeURIComponent(password)]) if (part.length >= MIN_SECRET_LENGTH) secrets.add(part);
  }
  // Longest first, so a secret containing another is replaced whole.
  const literal = [...secrets].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = maskUrlCredentials(text.replace(BEARER, `$1${REDACTED}`).replace(KEY_FIELD, `$1${REDACTED}`));
    for (const secret of literal) out = out.split(secret).join(REDACTED);
    return out;
  };
}
