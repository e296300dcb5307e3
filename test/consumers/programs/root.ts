// A user's project with Stepwise alone, no framework: the root (the core) and the subpaths that need none
// type-check strictly and load, the moved names are off the root, and the CLI runs.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as root from "stepwise";
import { Agent, ModelError, scriptedModel, todoList, withRetry, type ChatModel } from "stepwise";
import { anthropicModel } from "stepwise/anthropic";
import { createMcpServer } from "stepwise/mcp";
import { resolveModel } from "stepwise/models";
import { openAICompatibleModel } from "stepwise/openai";
import { openTelemetry } from "stepwise/otel";
import { PlanNotebook } from "stepwise/planning";
import { PostgresTaskStore } from "stepwise/postgres";
import { openRuns } from "stepwise/runs";
import { SqliteRunStore, SqliteTaskStore } from "stepwise/sqlite";
import { reactiveModel } from "stepwise/testing";
import { startViewer } from "stepwise/viewer";
import { check, finish } from "./check.js";

let failures = 0;
const flaky: ChatModel = {
  id: "mine:flaky",
  async generate() {
    if (failures++ === 0) throw Object.assign(new Error("busy"), { status: 503 });
    return { message: { role: "assistant", content: "hello" } };
  },
};
const agent = new Agent({ model: withRetry(flaky, { retryBaseDelayMs: 1 }), plugins: [todoList(), new PlanNotebook()] });
check((await agent.run("hi")).text === "hello" && failures === 2, "an agent runs from the root on a model of one's own, retried once by withRetry");
check(new Agent({ model: scriptedModel(["x"]) }) instanceof Agent && typeof reactiveModel === "function" && ModelError.name === "ModelError", "the root and stepwise/testing give the scripted models and ModelError");
const loaded = [anthropicModel, createMcpServer, resolveModel, openAICompatibleModel, openTelemetry, PostgresTaskStore, openRuns, SqliteRunStore, SqliteTaskStore, startViewer];
check(loaded.every((f) => typeof f === "function"), "stepwise/sqlite, /postgres, /openai, /anthropic, /models, /mcp, /otel, /runs and /viewer load without any framework");
check(!["SqliteRunStore", "openAICompatibleModel", "mcpTools", "openTelemetry", "openRuns", "startViewer"].some((name) => name in root), "the stores, providers, integrations and surfaces are off the root");
const bin = join(dirname(createRequire(import.meta.url).resolve("stepwise/package.json")), "dist", "cli", "main.js");
const help = spawnSync(process.execPath, [bin, "--help"], { encoding: "utf8" });
check(help.status === 0 && help.stdout.includes("stepwise"), "the stepwise command runs after a plain install");
finish();
