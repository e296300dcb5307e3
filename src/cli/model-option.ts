import { resolveModel } from "../models/model-spec.js";
import { CliError } from "./cli-error.js";
import { demoModels } from "./demo/demo-brains.js";
import type { ModelsByRole, StrategyName } from "../runs/strategies.js";

export const DEMO_MODEL = "scripted:demo";

/** `scripted:demo@300ms`: the offline brains, each answer taking that long (to watch a run live). */
const SLOW_DEMO_MODEL = /^scripted:demo@(\d+)ms$/;

/** `--model`: a provider:model spec for a real model (every role), or scripted:demo for the offline brains. */
export function modelsFor(spec: string, strategy: StrategyName): ModelsByRole {
  if (spec === DEMO_MODEL) return demoModels(strategy);
  const slow = SLOW_DEMO_MODEL.exec(spec);
  if (slow) return demoModels(strategy, { latencyMs: Number(slow[1]) });
  if (spec.startsWith("scripted:")) throw new CliError(`unknown scripted model "${spec}"; the offline one is ${DEMO_MODEL}`);
  let model;
  try {
    model = resolveModel(spec);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliError(`${reason} (or use --model ${DEMO_MODEL} to run offline)`);
  }
  return () => model;
}
