// stepwise/ai-sdk: everything that needs the AI SDK (the `ai` peer), kept off the package root.
export { aiSdkModel } from "../models/ai-sdk.js";
export type { AiSdkModelOptions } from "../models/ai-sdk.js";
export { aiSdkPlanning } from "./ai-sdk-planning.js";
export type { AiSdkPlanning, AiSdkPlanningOptions, AiTools, PlannedAgent, PlannedCall, PlanningToolName, PlanningTools } from "./ai-sdk-planning.js";
export type { PluginFactory } from "./plugin-bridge.js";
