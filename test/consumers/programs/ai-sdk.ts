// An AI SDK user's project: Stepwise planning per call, through generateText and a ToolLoopAgent,
// with the AI SDK's own MockLanguageModelV3.
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { generateText, stepCountIs, tool, ToolLoopAgent } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { todoList } from "stepwise";
import { aiSdkModel, aiSdkPlanning } from "stepwise/ai-sdk";
import { z } from "zod";
import { callTool, reply } from "./ai-sdk-replies.js";
import { AT_EVERY_TAIL, check, finish, meetingPoint, recitedLists, recitesOnlyItsOwn } from "./check.js";

const threadOf = (options: LanguageModelV3CallOptions) => {
  const user = options.prompt.find((message) => message.role === "user");
  const first = user && Array.isArray(user.content) ? user.content[0] : undefined;
  return (first?.type === "text" ? first.text : "").replace("Work on ", "");
};
const byThread = async (options: LanguageModelV3CallOptions) => {
  const name = threadOf(options);
  const results = options.prompt.filter((message) => message.role === "tool").length;
  if (results === 0) return reply([callTool(`${name}-w`, "write_todos", { todos: [{ content: `${name} first`, status: "pending" }] })]);
  if (results === 1) return reply([callTool(`${name}-m`, "meet", {})]);
  return reply([{ type: "text", text: `${name} done` }]);
};
const seenBy = (model: MockLanguageModelV3) => model.doGenerateCalls.map((options) => ({ thread: threadOf(options), text: JSON.stringify(options.prompt) }));

async function calls(): Promise<void> {
  const model = new MockLanguageModelV3({ doGenerate: byThread });
  const planning = aiSdkPlanning(() => [todoList(AT_EVERY_TAIL)]);
  const meet = tool({ description: "Wait for the other call.", inputSchema: z.object({}), execute: meetingPoint() });
  const results = await Promise.all(
    ["alpha", "beta"].map((name) => generateText(planning.call({ model, tools: { meet }, prompt: `Work on ${name}`, stopWhen: stepCountIs(5) }))),
  );
  const seen = seenBy(model);
  check(recitesOnlyItsOwn(seen, ["alpha", "beta"]), "two generateText calls interleaved mid-call: each request recites only its own list");
  check(seen.filter((r) => recitedLists(r.text).length > 0).length === 4, "both calls' later requests recited their list");
  check(!JSON.stringify(results[0]!.response.messages).includes("<todo-list>"), "the list is never in the call's response messages");
  const met = results[0]!.steps.flatMap((step) => step.toolResults).find((r) => !r.dynamic && r.toolName === "meet");
  const typed: string | undefined = met && !met.dynamic && met.toolName === "meet" ? met.output : undefined;
  check(typed === "met", "your tool's result keeps its type beside the planning tools");

  const later = new MockLanguageModelV3({ doGenerate: async () => reply([{ type: "text", text: "hi" }]) });
  await generateText(planning.call({ model: later, prompt: "Hi" }));
  check(recitedLists(JSON.stringify(later.doGenerateCalls[0]!.prompt)).length === 0, "a new call starts empty");
}

async function agent(): Promise<void> {
  const model = new MockLanguageModelV3({ doGenerate: byThread });
  const planning = aiSdkPlanning(() => [todoList(AT_EVERY_TAIL)]);
  const meet = tool({ description: "Wait for the other call.", inputSchema: z.object({}), execute: meetingPoint() });
  const worker = new ToolLoopAgent(planning.agent({ model, instructions: "Be brief.", tools: { meet }, stopWhen: stepCountIs(5) }));
  await Promise.all(["alpha", "beta"].map((name) => worker.generate({ prompt: `Work on ${name}` })));
  const seen = seenBy(model);
  check(recitesOnlyItsOwn(seen, ["alpha", "beta"]), "a ToolLoopAgent's two overlapping generate() calls each recite only their own list");
  check(JSON.stringify(model.doGenerateCalls[0]!.prompt[0]).includes("Be brief."), "the ToolLoopAgent keeps its instructions");
}

async function model(): Promise<void> {
  const mock = new MockLanguageModelV3({ doGenerate: async () => reply([{ type: "text", text: "from the AI SDK" }]) });
  const response = await aiSdkModel(mock).generate({ messages: [{ role: "user", content: "hi" }], tools: [] });
  check(response.message.content === "from the AI SDK", "aiSdkModel answers as a Stepwise ChatModel");
}

await calls();
await agent();
await model();
finish();
