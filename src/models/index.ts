// What every model shares, whichever provider is behind it: the error it fails with, retry, prices.
// The provider adapters come from stepwise/openai, stepwise/anthropic, stepwise/ai-sdk (or all from stepwise/models).
export { ModelError } from "./model-error.js";
export type { ModelErrorKind, ModelErrorDetails } from "./model-error.js";
export { withRetry } from "./retry.js";
export type { RetryOptions } from "./retry.js";
export { estimateCostUsd, priceOf, KNOWN_MODEL_PRICES } from "./model-prices.js";
export type { ModelPrice } from "./model-prices.js";
