import { Option } from "commander";
import type { ExternalDriver } from "../runs/external-driver.js";
import { CliError } from "./cli-error.js";

const SDK = "@restatedev/restate-sdk";

/** `--restate-ingress`, the same on every command that sends decisions to Restate (`ui`, `run --resume`). */
export function restateIngressOption(): Option {
  return new Option("--restate-ingress <url>", "decisions for runs served on Restate go to this ingress (http://127.0.0.1:8080)");
}

/** `--restate-ingress URL`: Restate as the run layer's external driver, decisions sent to `url`. */
export async function restateDriverFor(url: string): Promise<ExternalDriver> {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // Refused below.
  }
  if (parsed?.protocol !== "http:" && parsed?.protocol !== "https:") throw new CliError(`--restate-ingress expects an http:// or https:// URL, got ${JSON.stringify(url)}`);
  const { restateDriver } = await import("../integrations/restate/restate-run-client.js").catch(restateSdkMissing);
  return restateDriver({ url });
}

/** The Restate SDK is an optional dependency: a command that needs it says how to install it. */
export function restateSdkMissing(error: unknown): never {
  if ((error as { code?: string }).code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(SDK)) {
    throw new CliError(`stepwise restate needs the Restate SDK: npm install ${SDK}@^1.14.5`);
  }
  throw error;
}
