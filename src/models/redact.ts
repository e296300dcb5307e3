/** Replaces credentials in text that may end up in an error message, an event, a log or saved state. */
export const REDACTED = "[redacted]";

// Shorter strings are not credentials, and replacing them would mangle ordinary words.
const MIN_SECRET_LENGTH = 8;

// Credentials we were not told about (a key an AI SDK provider read from somewhere we do not know),
// recognised by the shapes providers give their keys.
const KEY_SHAPES = [
  /\bsk-[A-Za-z0-9_-]{16,}/g, // OpenAI, Anthropic (sk-ant-…), DeepSeek, DashScope, OpenRouter
  /\bAIza[0-9A-Za-z_-]{30,}/g, // Google
  /\bgsk_[A-Za-z0-9]{20,}/g, // Groq
  /\bxai-[A-Za-z0-9]{20,}/g, // xAI
  /\bhf_[A-Za-z0-9]{20,}/g, // Hugging Face
];

// Or by where they stand, whatever their shape: an Authorization header, a key header or field, a key query parameter.
const LABELLED = [
  /\b(Bearer\s+)[^\s"',;]+/gi,
  /\b((?:x-api-key|x-goog-api-key|api[-_ ]?key)["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi,
  /([?&]key=)[^\s"'&#]+/g,
];

/**
 * Removes each of `secrets` (the keys the caller knows of) and anything shaped like a provider key
 * or standing where a key stands. A key of an unfamiliar shape that nobody named can still get
 * through: pass the keys you have.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= MIN_SECRET_LENGTH) result = result.split(secret).join(REDACTED);
  }
  for (const pattern of LABELLED) result = result.replace(pattern, `$1${REDACTED}`);
  for (const pattern of KEY_SHAPES) result = result.replace(pattern, REDACTED);
  return result;
}

// A URL's password (group 1 is `scheme://user`), and query parameters named as credentials are.
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*):[^@/?#]*@/i;
const URL_USER = /^([a-z][a-z0-9+.-]*:\/\/)[^:/?#@]+@/i;
const SECRET_PARAMETER = /([?&])([^=&#]*(?:key|token|secret|pass|pwd|auth|sig|session|credential|jwt)[^=&#]*)=[^&#]*/gi;

/**
 * `url` with its credentials replaced: the password of `user:password@` or a lone user part (often a
 * token), and the values of query parameters named like credentials (`api_key`, `token`,
 * `access_token`, `password`, `sig`, …). The rest (host, path, other parameters) stays, to say where it led.
 */
export function redactUrlCredentials(url: string): string {
  const userinfo = URL_PASSWORD.test(url) ? url.replace(URL_PASSWORD, `$1:${REDACTED}@`) : url.replace(URL_USER, `$1${REDACTED}@`);
  return userinfo.replace(SECRET_PARAMETER, `$1$2=${REDACTED}`);
}
