// stepwise/testing: deterministic models for testing agents and workflows without a provider, and
// the behaviour suites a store must pass (ours run them; run them against a store of your own).
export * from "./models/scripted.js";
export { describePlanStore } from "./testing/plan-store-suite.js";
export type { PlanStoreFixture } from "./testing/plan-store-suite.js";
export { describeTaskStore } from "./testing/task-store-suite.js";
export type { TaskStoreFixture } from "./testing/task-store-suite.js";
export { describeRunStore } from "./testing/run-store-suite.js";
export type { RunStoreFixture } from "./testing/run-store-suite.js";
export type { TestFramework, Expect, Matchers } from "./testing/test-framework.js";
