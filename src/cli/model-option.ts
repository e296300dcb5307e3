import { resolveModel } from "../models/model-spec.js";
import { CliError } from "./cli-error.js";
import { demoModels } from "./demo/demo-brains.js";
import { ModelUnavailableError } from "../runs/run-input-error.js";
import type { ModelsByRole, StrategyName } from "../runs/strategies.js";

export const DEMO_MODEL = "scripted:demo";

/** `scripted:demo@300ms`: the offline brains, each answer taking that long (to watch a run live). */
const SLOW_DEMO_MODEL = /^scripted:demo@(\d+)ms$/;

/**
 * `--model`: a provider:model spec for a real model (every role), against `endpoint` when the run
 * has one (the base URL it was started with), or scripted:demo for the offline brains.
 */
export function modelsFor(spec: string, strategy: StrategyName, endpoint?: string): ModelsByRole {
  if (spec === DEMO_MODEL) return demoModels(strategy);
  const slow = SLOW_DEMO_MODEL.exec(spec);
  if (slow) return demoModels(strategy, { latencyMs: Number(slow[1]) });
  if (spec.startsWith("scripted:")) throw new CliError(`unknown scripted model "${spec}"; the offline one is ${DEMO_MODEL}`);
  let model;
  try {
    model = resolveModel(spec, { baseURL: endpoint });
  } catch (error) {
    // Said in words for wherever the run is resumed (a terminal, the viewer, a worker); a new run adds the offline hint.
    throw new ModelUnavailableError(error instanceof Error ? error.message : String(error));
  }
  return () => model;
}

/** What `stepwise run` adds to a model that cannot be made when a run starts. */
export const OFFLINE_HINT = `(or use --model ${DEMO_MODEL} to run offline)`;
