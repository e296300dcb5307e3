// A run keeps the endpoint its model spec was started with (a base URL, never a key), so a resume in
// another process, a worker or the viewer sends the run's conversation where it went before, and not
// to the provider's public host because the resuming shell lacks OPENAI_BASE_URL.
import { modelEndpoint } from "../models/model-spec.js";
import { ModelUnavailableError } from "./run-input-error.js";

type Env = Record<string, string | undefined>;

/** What is kept of a base URL: no user, password, query or fragment, where a secret could hide. */
function keptForm(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}

/** The endpoint a new run of `spec` records: where this process sends its requests (undefined for a model the run layer did not resolve). */
export function startingEndpoint(spec: string, env: Env): string | undefined {
  const here = modelEndpoint(spec, env);
  return here ? keptForm(here.baseURL) : undefined;
}

/**
 * The base URL a resumed run's model must use: its own endpoint. A process whose environment names
 * another endpoint for the provider is refused rather than sent elsewhere (its key may be for that
 * other one); one that names the same endpoint with credentials in it uses its own form.
 */
export function resumingEndpoint(runId: string, spec: string, saved: string | undefined, env: Env): string | undefined {
  const here = modelEndpoint(spec, env);
  if (saved === undefined || !here) return saved;
  if (!here.fromEnvironment) return saved;
  if (keptForm(here.baseURL) === saved) return here.baseURL;
  throw new ModelUnavailableError(
    `run ${runId} was started against ${saved}, but this process's ${here.variable} is ${keptForm(here.baseURL)}; ` +
      `unset ${here.variable} (or set it to ${saved}) to go on against the run's own endpoint`,
  );
}
