// Regression: when the model finishes the last subtask and the plan in one turn, the next request
// must still let it answer the user, and must not push it to plan the same request again.
import { expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import { PlanNotebook } from "./plan-notebook.js";

it("gives the model its turn to answer after finish_subtask(last) and finish_plan in the same turn", async () => {
  const notebook = new PlanNotebook();
  const model = scriptedModel([
    {
      toolCalls: [
        {
          name: "create_plan",
          arguments: { name: "Report", description: "Write it.", expected_outcome: "A report.", subtasks: [{ name: "Write", description: "Write.", expected_outcome: "Text." }] },
        },
      ],
    },
    {
      toolCalls: [
        { name: "finish_subtask", arguments: { subtask_idx: 0, subtask_outcome: "The report text." } },
        { name: "finish_plan", arguments: { state: "done", outcome: "The report is written." } },
      ],
    },
    "Here is your report: …",
    "Anything else?",
  ]);
  const agent = new Agent({ model, plugins: [notebook] });
  const result = await agent.run("Write me a report.");

  const results = agent.memory.filter((m) => m.role === "tool").map((m) => m.content);
  expect(results[1]).toContain("is done");
  expect(results[2]).toContain("is finished as 'done'");
  expect(result).toMatchObject({ text: "Here is your report: …", stopReason: "final", steps: 3 });
  const answerHint = model.requests[2]?.messages.at(-1)?.content ?? "";
  expect(answerHint).toContain("'Report' has just been finished as done, with this outcome: The report is written.");
  expect(answerHint).toContain("answer the user");
  expect(answerHint).not.toContain("There is no plan yet.");

  // Shown once: the next run is back to the no-plan hint.
  await agent.run("Thanks.");
  expect(model.requests[3]?.messages.at(-1)?.content).toContain("There is no plan yet.");
});
