// stepwise/models: the adapters from real providers to the model contract, without the rest of the package.
export { openAICompatibleModel } from "./openai-compatible.js";
export type { OpenAICompatibleOptions } from "./openai-compatible.js";
export { anthropicModel } from "./anthropic.js";
export type { AnthropicModelOptions } from "./anthropic.js";
export { aiSdkModel } from "./ai-sdk.js";
export type { AiSdkModelOptions } from "./ai-sdk.js";
export { resolveModel, MODEL_PROVIDERS } from "./model-spec.js";
export type { ModelProvider, ResolveModelOptions } from "./model-spec.js";
export { ModelError } from "./model-error.js";
export type { ModelErrorKind, ModelErrorDetails } from "./model-error.js";
export type { RetryOptions } from "./retry.js";
export { estimateCostUsd, priceOf, KNOWN_MODEL_PRICES } from "./model-prices.js";
export type { ModelPrice } from "./model-prices.js";
