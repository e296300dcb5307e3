// Reproduces the three model requests of the reference's transcript (000): no-plan hint, then the
// all-todo hint after create_plan, then the in-progress hint after update_subtask_state(0).
import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import { PlanNotebook } from "./plan-notebook.js";

const REQUEST = "帮我做一个agent创业的行业报告";

const CREATE_PLAN_ARGUMENTS = {
  name: "Agent创业行业报告",
  description: "进行市场研究以创建一个关于agent创业的行业报告。这将包括确定关键趋势，识别主要参与者，分析市场需求，并提供可行的建议。",
  expected_outcome: "一份全面的行业报告，涵盖了有关agent创业的主要发现和见解。",
  subtasks: [
    { name: "定义目标与范围", description: "明确报告的目标受众，确定需要涵盖的关键领域，例如市场趋势、竞争格局等。", expected_outcome: "清晰定义的目标和报告范围文档。" },
    { name: "收集行业数据", description: "从可靠来源搜集关于agent行业的相关数据，包括市场规模、增长率、主要参与者等信息。", expected_outcome: "整理好的行业数据集。" },
    { name: "分析市场趋势", description: "基于收集的数据，分析当前市场趋势以及它们对agent创业的影响。", expected_outcome: "详细的市场趋势分析报告。" },
    { name: "识别主要竞争对手", description: "找出该领域的领先企业和新兴公司，并总结它们的优势和劣势。", expected_outcome: "竞争对手概览及其SWOT分析。" },
    { name: "评估市场需求", description: "通过调查或现有研究来了解目标客户的需求和偏好。", expected_outcome: "市场需求评估报告。" },
    { name: "撰写报告草稿", description: "整合所有子任务的研究成果，形成一份初步的行业报告草稿。", expected_outcome: "行业报告初稿。" },
    { name: "审查与修改", description: "审阅报告草稿，确保内容准确无误且逻辑连贯。必要时进行修改。", expected_outcome: "最终版本的行业报告。" },
  ],
};

// The plan markdown exactly as the reference prints it (a format fact), at the same creation time.
const PLAN_HEADER = [
  "# Agent创业行业报告",
  "**Description**: 进行市场研究以创建一个关于agent创业的行业报告。这将包括确定关键趋势，识别主要参与者，分析市场需求，并提供可行的建议。",
  "**Expected Outcome**: 一份全面的行业报告，涵盖了有关agent创业的主要发现和见解。",
];
const OTHER_SUBTASKS = ["- [ ] 收集行业数据", "- [ ] 分析市场趋势", "- [ ] 识别主要竞争对手", "- [ ] 评估市场需求", "- [ ] 撰写报告草稿", "- [ ] 审查与修改"];
const TODO_PLAN = [...PLAN_HEADER, "**State**: todo", "**Created At**: 2026-03-31 21:33:10.790", "## Subtasks", "- [ ] 定义目标与范围", ...OTHER_SUBTASKS].join("\n");
const STARTED_PLAN = [...PLAN_HEADER, "**State**: in_progress", "**Created At**: 2026-03-31 21:33:10.790", "## Subtasks", "- [ ] [WIP]定义目标与范围", ...OTHER_SUBTASKS].join("\n");
const SUBTASK_0_DETAILS = [
  "- [ ] [WIP]定义目标与范围",
  "\t- Created At: 2026-03-31 21:33:10.790",
  "\t- Description: 明确报告的目标受众，确定需要涵盖的关键领域，例如市场趋势、竞争格局等。",
  "\t- Expected Outcome: 清晰定义的目标和报告范围文档。",
  "\t- State: in_progress",
].join("\n");

const HINT = /<system-hint>/;

describe("reference transcript (000)", () => {
  it("sends the no-plan, all-todo and in-progress hints as the last message of requests 1-3, and keeps none", async () => {
    const notebook = new PlanNotebook({ clock: () => new Date("2026-03-31T21:33:10.790Z") });
    const model = scriptedModel([
      { toolCalls: [{ id: "call_7668a177212a4a5b865fa6", name: "create_plan", arguments: JSON.stringify(CREATE_PLAN_ARGUMENTS) }] },
      { toolCalls: [{ id: "call_71cb9937251448f5a230aa", name: "update_subtask_state", arguments: '{"subtask_idx": 0, "state": "in_progress"}' }] },
      "我先明确报告的目标受众和范围。",
    ]);
    const agent = new Agent({ model, systemPrompt: "You are a helpful assistant.", plugins: [notebook] });
    await agent.run(REQUEST);

    const [first, second, third] = model.requests.map((r) => r.messages);
    expect(first?.slice(0, 2)).toEqual([
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: REQUEST },
    ]);
    for (const messages of [first, second, third]) {
      expect(messages?.filter((m) => HINT.test(m.content))).toHaveLength(1);
      expect(messages?.at(-1)?.role).toBe("user");
      expect(messages?.at(-1)?.content).toMatch(/^<system-hint>[\s\S]*<\/system-hint>$/);
    }

    const noPlanHint = first!.at(-1)!.content;
    expect(first).toHaveLength(3);
    expect(noPlanHint).toContain("'create_plan'");
    expect(noPlanHint).not.toContain("```");

    const todoHint = second!.at(-1)!.content;
    expect(second!.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(second![3]).toMatchObject({ role: "tool", name: "create_plan", toolCallId: "call_7668a177212a4a5b865fa6" });
    expect(todoHint).toContain(`\`\`\`\n${TODO_PLAN}\n\`\`\``);
    expect(todoHint).toContain("'update_subtask_state' with subtask_idx=0 and state='in_progress'");

    const progressHint = third!.at(-1)!.content;
    expect(third!.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool", "user"]);
    expect(third![5]).toMatchObject({ role: "tool", name: "update_subtask_state" });
    expect(third![5]!.content).toContain("定义目标与范围");
    expect(progressHint).toContain(`\`\`\`\n${STARTED_PLAN}\n\`\`\``);
    expect(progressHint).toContain(`\`\`\`\n${SUBTASK_0_DETAILS}\n\`\`\``);
    expect(progressHint).toContain("'finish_subtask' with subtask_idx=0");

    expect(agent.memory.some((m) => HINT.test(m.content))).toBe(false);
    expect(agent.memory.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
  });
});
