import type { ChatModel } from "../core/model.js";
import { anthropicModel } from "./anthropic.js";
import { openAICompatibleModel } from "./openai-compatible.js";
import type { RetryOptions } from "./retry.js";

export type ModelProvider = "openai" | "dashscope" | "deepseek" | "anthropic" | "ollama";

type ProviderEntry = {
  adapter: "openai-compatible" | "anthropic";
  /** The environment variable holding the key; absent for servers that need none. */
  keyVariable?: string;
  baseUrlVariable: string;
  defaultBaseURL: string;
};

const PROVIDERS: Record<ModelProvider, ProviderEntry> = {
  openai: {
    adapter: "openai-compatible",
    keyVariable: "OPENAI_API_KEY",
    baseUrlVariable: "OPENAI_BASE_URL",
    defaultBaseURL: "https://api.openai.com/v1",
  },
  dashscope: {
    adapter: "openai-compatible",
    keyVariable: "DASHSCOPE_API_KEY",
    baseUrlVariable: "DASHSCOPE_BASE_URL",
    defaultBaseURL: "https://dashscope.aliyuncs.com/compatible-mode/v1",
  },
  deepseek: {
    adapter: "openai-compatible",
    keyVariable: "DEEPSEEK_API_KEY",
    baseUrlVariable: "DEEPSEEK_BASE_URL",
    defaultBaseURL: "https://api.deepseek.com",
  },
  anthropic: {
    adapter: "anthropic",
    keyVariable: "ANTHROPIC_API_KEY",
    baseUrlVariable: "ANTHROPIC_BASE_URL",
    defaultBaseURL: "https://api.anthropic.com",
  },
  ollama: { adapter: "openai-compatible", baseUrlVariable: "OLLAMA_BASE_URL", defaultBaseURL: "http://127.0.0.1:11434/v1" },
};

export const MODEL_PROVIDERS = Object.keys(PROVIDERS) as ModelProvider[];

export interface ResolveModelOptions extends RetryOptions {
  /** Where keys and base-URL overrides are read (default process.env). */
  env?: Record<string, string | undefined> | undefined;
  /** The provider's base URL to use, over <PROVIDER>_BASE_URL and the default (a resumed run's own endpoint). */
  baseURL?: string | undefined;
}

/**
 * The model a "provider:model" string names, e.g. "openai:gpt-4o-mini" or "ollama:qwen2.5:7b",
 * with its key read from the provider's usual environment variable (OPENAI_API_KEY, ...) and its
 * base URL overridable by <PROVIDER>_BASE_URL. A bad spec or a missing key throws a one-line Error.
 */
export function resolveModel(spec: string, opts: ResolveModelOptions = {}): ChatModel {
  const { env = process.env, baseURL: given, ...retry } = opts;
  const { provider, model, adapter, apiKey, baseURL: fromEnv } = parseModelSpec(spec, env);
  const baseURL = given ?? fromEnv;
  if (adapter === "anthropic") return anthropicModel({ ...retry, model, apiKey, baseURL });
  return openAICompatibleModel({ ...retry, model, provider, apiKey, baseURL });
}

/** What a spec resolves to, before any client is made. */
export type ParsedModelSpec = {
  provider: ModelProvider;
  model: string;
  adapter: ProviderEntry["adapter"];
  apiKey: string | undefined;
  baseURL: string;
};

/** Where a provider spec's requests go in this environment: the base URL, and the variable that can set it. */
export type ModelEndpoint = { baseURL: string; variable: string; fromEnvironment: boolean };

/** The endpoint of a "provider:model" spec in `env`; undefined for a spec that names no known provider. */
export function modelEndpoint(spec: string, env: Record<string, string | undefined>): ModelEndpoint | undefined {
  const providerName = spec.slice(0, Math.max(spec.indexOf(":"), 0)).trim().toLowerCase();
  if (!Object.hasOwn(PROVIDERS, providerName)) return undefined;
  const entry = PROVIDERS[providerName as ModelProvider];
  const set = env[entry.baseUrlVariable];
  // An empty variable counts as unset.
  return { baseURL: set || entry.defaultBaseURL, variable: entry.baseUrlVariable, fromEnvironment: Boolean(set) };
}

export function parseModelSpec(spec: string, env: Record<string, string | undefined>): ParsedModelSpec {
  const accepted = MODEL_PROVIDERS.join(", ");
  const colon = spec.indexOf(":");
  // Only the first colon separates: model names may hold colons themselves (Ollama tags).
  const providerName = spec.slice(0, Math.max(colon, 0)).trim().toLowerCase();
  const model = colon === -1 ? "" : spec.slice(colon + 1).trim();
  if (!providerName || !model) {
    throw new Error(`Model "${spec}" should be "provider:model", e.g. "openai:gpt-4o-mini"; providers: ${accepted}`);
  }
  if (providerName === "scripted") {
    throw new Error(
      `"${spec}" is the command line's offline demo: it plays a different scripted part for each strategy, so it is not one model. ` +
        'In code, script a model with scriptedModel(turns) or reactiveModel(reply), from "stepwise" or "stepwise/testing".',
    );
  }
  if (!Object.hasOwn(PROVIDERS, providerName)) {
    throw new Error(`Unknown model provider "${providerName}" in "${spec}"; use one of: ${accepted}`);
  }
  const provider = providerName as ModelProvider;
  const entry = PROVIDERS[provider];
  const apiKey = entry.keyVariable ? env[entry.keyVariable] : undefined;
  if (entry.keyVariable && !apiKey) {
    throw new Error(`Model "${spec}" needs an API key: set ${entry.keyVariable} in the environment.`);
  }
  const { baseURL } = modelEndpoint(spec, env) as ModelEndpoint;
  return { provider, model, adapter: entry.adapter, apiKey, baseURL };
}
