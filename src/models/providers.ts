// stepwise/models: every provider adapter that needs no peer, and resolveModel("provider:model") over them.
// The AI SDK's adapter needs the `ai` peer, so it comes from stepwise/ai-sdk.
export * from "./index.js";
export * from "./openai-compatible.js";
export * from "./anthropic.js";
export { resolveModel, MODEL_PROVIDERS } from "./model-spec.js";
export type { ModelProvider, ResolveModelOptions } from "./model-spec.js";
