// stepwise/testing: deterministic models for testing agents and workflows without a provider.
export { scriptedModel, reactiveModel } from "./models/scripted.js";
export type { ScriptedTurn, ScriptedModel, ScriptedModelOptions } from "./models/scripted.js";
