// An OpenAI Agents SDK user's project: Stepwise planning through planning.agent() and planning.run(),
// with a model written to the SDK's Model interface (the SDK ships no fake one), a MemorySession,
// and RunState serialised for a resume in another process.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySession, RunState, tool, Usage, type AgentInputItem, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { todoList } from "stepwise";
import { openAIAgentsPlanning } from "stepwise/openai-agents";
import { z } from "zod";
import { AT_EVERY_TAIL, check, finish, meetingPoint, recitedLists, recitesOnlyItsOwn } from "./check.js";

type Output = ModelResponse["output"];
const functionCall = (name: string, args: unknown, callId: string): Output[number] => ({ type: "function_call", callId, name, arguments: JSON.stringify(args), status: "completed" });
const answer = (text: string): Output[number] => ({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
const writeTodos = (items: string[], callId: string) => functionCall("write_todos", { todos: items.map((content) => ({ content, status: "pending" })) }, callId);
const itemsOf = (request: ModelRequest): AgentInputItem[] => (typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input);
const textOf = (request: ModelRequest) => JSON.stringify(itemsOf(request));
const threadOf = (request: ModelRequest) => {
  const first = itemsOf(request)[0];
  return (first && "content" in first && typeof first.content === "string" ? first.content : "").replace("Work on ", "");
};

/** A model answering each request from the request itself; it records every request. */
function reactiveModel(answerFor: (request: ModelRequest) => Output) {
  const requests: ModelRequest[] = [];
  const model: Model = {
    async getResponse(request) {
      requests.push(request);
      return { usage: new Usage(), output: answerFor(request) };
    },
    async *getStreamedResponse() {
      throw new Error("not used");
    },
  };
  return { model, requests };
}

async function interleaved(): Promise<void> {
  const meet = tool({ name: "meet", description: "Wait for the other run.", parameters: z.object({}), execute: meetingPoint() });
  const { model, requests } = reactiveModel((request) => {
    const name = threadOf(request);
    const results = itemsOf(request).filter((item) => "type" in item && item.type === "function_call_result").length;
    if (results === 0) return [writeTodos([`${name} first`, `${name} second`], `${name}-w`)];
    if (results === 1) return [functionCall("meet", {}, `${name}-m`)];
    return [answer(`${name} done`)];
  });
  const planning = openAIAgentsPlanning(() => [todoList(AT_EVERY_TAIL)]);
  const agent = planning.agent({ name: "worker", instructions: "Be brief.", model, tools: [meet] });
  const session = new MemorySession();
  const [alpha] = await Promise.all([planning.run(agent, "Work on alpha", { session }), planning.run(agent, "Work on beta")]);
  const seen = requests.map((request) => ({ thread: threadOf(request), text: textOf(request) }));
  check(recitesOnlyItsOwn(seen, ["alpha", "beta"]), "two runs interleaved mid-run: each request recites only its own list");
  check(seen.filter((r) => recitedLists(r.text).length > 0).length === 4, "both runs' later requests recited their list");
  check(!JSON.stringify(await session.getItems()).includes("<todo-list>"), "the list is never written to the session");
  check(!JSON.stringify(alpha.history).includes("<todo-list>"), "the list is never in the run's history");

  const fresh = reactiveModel(() => [answer("hello")]);
  await planning.run(planning.agent({ name: "other", model: fresh.model }), "Hi");
  check(recitedLists(textOf(fresh.requests[0]!)).length === 0, "a new run starts empty");
}

async function paused(file: string): Promise<void> {
  const deploy = tool({ name: "deploy", description: "Deploy.", parameters: z.object({}), needsApproval: true, execute: () => "deployed" });
  const { model } = reactiveModel((request) => (textOf(request).includes("write_todos") ? [functionCall("deploy", {}, "d1")] : [writeTodos(["deploy"], "w1")]));
  const planning = openAIAgentsPlanning(() => [todoList(AT_EVERY_TAIL)]);
  const result = await planning.run(planning.agent({ name: "ops", model, tools: [deploy] }), "Deploy it");
  check(result.interruptions.length === 1, "the run paused for an approval");
  writeFileSync(file, result.state.toString());
  const child = spawnSync(process.execPath, [process.argv[1]!, "resume", file], { encoding: "utf8" });
  rmSync(file, { force: true });
  process.stdout.write(child.stdout);
  process.stderr.write(child.stderr);
  check(child.status === 0, "a new process resumed the run from its RunState");
}

async function resume(file: string): Promise<void> {
  const deploy = tool({ name: "deploy", description: "Deploy.", parameters: z.object({}), needsApproval: true, execute: () => "deployed" });
  const { model, requests } = reactiveModel(() => [answer("Deployed.")]);
  const planning = openAIAgentsPlanning(() => [todoList(AT_EVERY_TAIL)]);
  const agent = planning.agent({ name: "ops", model, tools: [deploy] });
  const state = await RunState.fromString(agent, readFileSync(file, "utf8"));
  for (const interruption of state.getInterruptions()) state.approve(interruption);
  const result = await planning.run(agent, state);
  check(result.finalOutput === "Deployed.", "  (new process) the approved call ran");
  check(recitedLists(textOf(requests[0]!)).some((list) => list.includes("#1 deploy")), "  (new process) the first request recites the restored list");
}

if (process.argv[2] === "resume") {
  await resume(process.argv[3]!);
} else {
  await interleaved();
  await paused(join(tmpdir(), `stepwise-consumer-${process.pid}.json`));
}
finish();
