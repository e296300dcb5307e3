/** How many characters of a model-supplied string a result or error repeats back by default. */
export const QUOTE_LIMIT = 200;

/**
 * The start of `text`, at most `limit` characters, saying how many were left out when it was
 * longer: what the model sent is hostile input, and an 8 MB argument must never come back whole.
 */
export function boundedText(text: string, limit = QUOTE_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters left out)`;
}

/** As boundedText, quoted as a JSON string, for naming model input inside a sentence. */
export function boundedQuote(text: string, limit = QUOTE_LIMIT): string {
  return text.length <= limit ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, limit))}… (${text.length - limit} more characters left out)`;
}
