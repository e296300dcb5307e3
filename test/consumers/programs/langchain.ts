// A LangChain.js user's project: Stepwise planning in createAgent, with LangChain's own fake model
// and checkpointers (MemorySaver, and PostgreSQL for a restart in another process).
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { AIMessage, createAgent, HumanMessage, humanInTheLoopMiddleware, tool, type BaseMessage } from "langchain";
import pg from "pg";
import { todoList } from "stepwise";
import { langChainPlanning } from "stepwise/langchain";
import { z } from "zod";
import { AT_EVERY_TAIL, check, finish, meetingPoint, recitedLists, recitesOnlyItsOwn } from "./check.js";

const DATABASE_URL = process.env["STEPWISE_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const textOf = (message: BaseMessage) => (typeof message.content === "string" ? message.content : message.text);
const call = (name: string, args: Record<string, unknown>, id: string) => ({ name, args, id, type: "tool_call" as const });
const writeTodos = (items: string[], id: string) =>
  new AIMessage({ content: "", tool_calls: [call("write_todos", { todos: items.map((content) => ({ content, status: "pending" })) }, id)] });

/** LangChain's fake chat model answering each request from its own conversation; it records every request. */
function threadModel(answer: (messages: BaseMessage[]) => AIMessage) {
  const model = fakeModel();
  const requests: BaseMessage[][] = [];
  for (let i = 0; i < 40; i++) {
    model.respond((messages) => {
      requests.push([...messages]);
      return answer(messages);
    });
  }
  return { model, requests };
}

const threadOf = (messages: BaseMessage[]) => textOf(messages.find((m) => HumanMessage.isInstance(m))!).replace("Work on ", "");

async function interleaved(): Promise<void> {
  const meet = tool(meetingPoint(), { name: "meet", description: "Wait for the other thread.", schema: z.object({}) });
  const { model, requests } = threadModel((messages) => {
    const name = threadOf(messages);
    const results = messages.filter((m) => m.getType() === "tool").length;
    if (results === 0) return writeTodos([`${name} first`, `${name} second`], `${name}-w`);
    if (results === 1) return new AIMessage({ content: "", tool_calls: [call("meet", {}, `${name}-m`)] });
    return new AIMessage(`${name} done`);
  });
  const agent = createAgent({ model, tools: [meet], middleware: [langChainPlanning(() => [todoList(AT_EVERY_TAIL)])], checkpointer: new MemorySaver() });
  const [alpha, beta] = await Promise.all(
    ["alpha", "beta"].map((name) => agent.invoke({ messages: [new HumanMessage(`Work on ${name}`)] }, { configurable: { thread_id: name } })),
  );
  const seen = requests.map((messages) => ({ thread: threadOf(messages), text: messages.map(textOf).join("\n") }));
  check(recitesOnlyItsOwn(seen, ["alpha", "beta"]), "two threads interleaved mid-run: each request recites only its own list");
  check(seen.filter((r) => recitedLists(r.text).length > 0).length === 4, "both threads' later requests recited their list");
  check(alpha!.todos.map((t) => t.content).join() === "alpha first,alpha second", "result.todos shows the thread's own list");
  check(beta!.todos.map((t) => t.content).join() === "beta first,beta second", "the other thread's result.todos is its own");
  check(!JSON.stringify(alpha!.messages).includes("<todo-list>"), "the list is never in the stored messages");

  const { model: other, requests: otherRequests } = threadModel(() => new AIMessage("hello"));
  const second = createAgent({ model: other, middleware: [langChainPlanning(() => [todoList(AT_EVERY_TAIL)])], checkpointer: new MemorySaver() });
  const fresh = await second.invoke({ messages: [new HumanMessage("Hi")] }, { configurable: { thread_id: "new" } });
  check(fresh.todos.length === 0 && recitedLists(otherRequests.flat().map(textOf).join("\n")).length === 0, "a run on a new thread starts empty");
}

async function beside(): Promise<void> {
  const lookup = tool(({ q }: { q: string }) => `found ${q}`, { name: "lookup", description: "Look up.", schema: z.object({ q: z.string() }) });
  for (const order of ["planning first", "approval first"]) {
    const { model } = threadModel((messages) =>
      messages.some((m) => m.getType() === "tool" && textOf(m) === "found x")
        ? new AIMessage("Done.")
        : new AIMessage({ content: "", tool_calls: [call("write_todos", { todos: [{ content: "look", status: "in_progress" }] }, "w1"), call("lookup", { q: "x" }, "l1")] }),
    );
    const planning = langChainPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const approval = humanInTheLoopMiddleware({ interruptOn: { lookup: true } });
    const agent =
      order === "planning first"
        ? createAgent({ model, tools: [lookup], middleware: [planning, approval], checkpointer: new MemorySaver() })
        : createAgent({ model, tools: [lookup], middleware: [approval, planning], checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "review" } };
    await agent.invoke({ messages: [new HumanMessage("Look it up")] }, config);
    const result = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    check(result.messages.map(textOf).includes("found x") && result.todos[0]?.content === "look", `beside humanInTheLoopMiddleware (${order})`);
  }
}

async function restart(schema: string): Promise<void> {
  const checkpointer = PostgresSaver.fromConnString(DATABASE_URL, { schema });
  await checkpointer.setup();
  const { model } = threadModel((messages) => (messages.some((m) => m.getType() === "tool") ? new AIMessage("Planned.") : writeTodos(["ship it"], "w1")));
  const agent = createAgent({ model, middleware: [langChainPlanning(() => [todoList(AT_EVERY_TAIL)])], checkpointer });
  const planned = await agent.invoke({ messages: [new HumanMessage("Plan")] }, { configurable: { thread_id: "restart" } });
  check(planned.todos[0]?.content === "ship it", "the list is in the PostgreSQL checkpoint's state");
  await checkpointer.end();
  const child = spawnSync(process.execPath, [process.argv[1]!, "resume", schema], { encoding: "utf8" });
  process.stdout.write(child.stdout);
  process.stderr.write(child.stderr);
  check(child.status === 0, "a new process resumed the thread from the checkpoint");
}

async function resume(schema: string): Promise<void> {
  const checkpointer = PostgresSaver.fromConnString(DATABASE_URL, { schema });
  const { model, requests } = threadModel(() => new AIMessage("Continuing."));
  const agent = createAgent({ model, middleware: [langChainPlanning(() => [todoList(AT_EVERY_TAIL)])], checkpointer });
  const resumed = await agent.invoke({ messages: [new HumanMessage("Go on")] }, { configurable: { thread_id: "restart" } });
  check(recitedLists(requests[0]!.map(textOf).join("\n")).some((list) => list.includes("#1 ship it")), "  (new process) the first request recites the restored list");
  check(resumed.todos[0]?.content === "ship it", "  (new process) result.todos has the restored list");
  await checkpointer.end();
}

if (process.argv[2] === "resume") {
  await resume(process.argv[3]!);
} else {
  await interleaved();
  await beside();
  const schema = `stepwise_consumer_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  try {
    await restart(schema);
  } finally {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}
finish();
