// A Restate service process serving Stepwise runs, for the tests. Usage:
//   serve-stepwise-runs.ts <port> <store.db> <ledger-file> [model:<n> | tool:<entry prefix>]
// Models: "scripted:demo" (the offline demo's brains for the run's strategy, with the workspace tools),
// "test:todos" (write_todos, then one `ledger` call a turn for a, b and c, the last beside a
// write_todos that completes the list; each call with an id of its own, as a provider gives them)
// and "test:compiler" (a plan of three ledger tasks, x and y at once and z after both). Each answer
// follows from the request alone, so a model call made after a replay picks up where the run is.
// The `ledger` tool appends its entry to the ledger file. A hold stops one call for good, so the
// test can kill the process there: "model:<n>" the model call with that number (counted from the
// request, the first is 1), printing "holding model <n>"; "tool:<prefix>" the ledger call whose
// entry starts so, before it writes, printing "holding tool <entry>". Prints "listening <port>" once
// it serves; exits when its stdin closes (the test process is gone).
import { appendFileSync } from "node:fs";
import { createServer } from "node:http2";
import * as restate from "@restatedev/restate-sdk";
import { z } from "zod";
import type { ChatModel, ModelRequest } from "../../../core/model.js";
import { defineTool } from "../../../core/tool.js";
import { reactiveModel, type ScriptedTurn } from "../../../models/scripted.js";
import { openStores } from "../../../runs/store-set.js";
import { workspaceTools } from "../../../tools/workspace-tools.js";
import { demoModels } from "../../../cli/demo/demo-brains.js";
import { DEMO_MODEL } from "../../../cli/model-option.js";
import { restateRunService } from "../restate-run-service.js";

const [port, storePath, ledgerFile, hold = ""] = process.argv.slice(2) as [string, string, string, string | undefined];
const say = (line: string) => process.stdout.write(`${line}\n`);
const [holdKind, holdAt] = hold.split(":");
const never = () => new Promise<never>(() => undefined);

const ledger = defineTool({
  name: "ledger",
  description: "Appends one entry to the ledger.",
  parameters: z.object({ entry: z.string() }),
  async execute({ entry }) {
    if (holdKind === "tool" && holdAt && entry.startsWith(holdAt)) {
      say(`holding tool ${entry}`);
      await never();
    }
    appendFileSync(ledgerFile, `${entry}\n`);
    return `recorded ${entry}`;
  },
});

/** A write_todos call giving the three entries these statuses. */
const writeTodos = (id: string, statuses: [string, string, string]) => ({
  id,
  name: "write_todos",
  arguments: { todos: ["record a", "record b", "record c"].map((content, at) => ({ content, status: statuses[at] })) },
});

const TODO_TURNS: ScriptedTurn[] = [
  { toolCalls: [writeTodos("todos-1", ["in_progress", "pending", "pending"])] },
  { toolCalls: [{ id: "ledger-a", name: "ledger", arguments: { entry: "a" } }] },
  { toolCalls: [{ id: "ledger-b", name: "ledger", arguments: { entry: "b" } }] },
  { toolCalls: [{ id: "ledger-c", name: "ledger", arguments: { entry: "c" } }, writeTodos("todos-2", ["completed", "completed", "completed"])] },
  "Recorded a, b and c.",
];

const COMPILER_PLAN = [
  '{"id": 1, "tool": "ledger", "args": {"entry": "x"}}',
  '{"id": 2, "tool": "ledger", "args": {"entry": "y"}}',
  '{"id": 3, "tool": "ledger", "args": {"entry": "z after $1 and $2"}, "deps": [1, 2]}',
  '{"tool": "join"}',
].join("\n");

/** Model calls this run made before the one asking (an agent's turns so far). */
const callsBefore = (req: ModelRequest) => req.messages.filter((message) => message.role === "assistant").length;

const todosBrain = (req: ModelRequest): ScriptedTurn => TODO_TURNS[Math.min(callsBefore(req), TODO_TURNS.length - 1)] as ScriptedTurn;
const compilerBrain = (req: ModelRequest): ScriptedTurn => {
  const last = req.messages.at(-1);
  const text = typeof last?.content === "string" ? last.content : "";
  return text.startsWith("Decide whether") ? JSON.stringify({ action: "finish", answer: "recorded x, y and z" }) : COMPILER_PLAN;
};

/** Holds the model call numbered `holdAt` forever. */
function holding(model: ChatModel): ChatModel {
  return {
    id: model.id,
    async generate(req) {
      const n = callsBefore(req) + 1;
      if (holdKind === "model" && String(n) === holdAt) {
        say(`holding model ${n}`);
        await never();
      }
      return model.generate(req);
    },
  };
}

const stores = openStores(storePath);
const service = restateRunService({
  stores,
  models: (spec, strategy) => {
    if (spec === DEMO_MODEL) {
      const demo = demoModels(strategy);
      return (role) => holding(demo(role));
    }
    const brain = spec === "test:compiler" ? compilerBrain : todosBrain;
    const model = holding(reactiveModel(brain, { id: spec }));
    return () => model;
  },
  tools: (settings) => [ledger, ...workspaceTools(settings.workspace)],
  onWarning: (message) => say(`warning ${message}`),
});

const server = createServer(restate.createEndpointHandler({ services: [service] }));
server.listen(Number(port), "127.0.0.1", () => say(`listening ${(server.address() as { port: number }).port}`));
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
