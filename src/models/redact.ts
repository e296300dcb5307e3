/** Replaces credentials in text that may end up in an error message, an event, a log or saved state. */
const REDACTED = "[redacted]";

// Shorter strings are not credentials, and replacing them would mangle ordinary words.
const MIN_SECRET_LENGTH = 8;

export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= MIN_SECRET_LENGTH) result = result.split(secret).join(REDACTED);
  }
  // Credentials we were not told about, e.g. a key an AI SDK provider read from the environment.
  return result.replace(/\b(Bearer\s+)[^\s"',;]+/gi, `$1${REDACTED}`).replace(/\bsk-[A-Za-z0-9_-]{16,}/g, REDACTED);
}
