import { describe, expect, it } from "vitest";
import { ARGUMENT_DESCRIPTIONS, CREATE_PLAN_APPROVAL_NOTE, DONE_NEEDS_FINISH_SUBTASK, TOOL_DESCRIPTIONS } from "./tool-descriptions.js";

describe("plan tool descriptions", () => {
  it("state the rules the notebook enforces", () => {
    expect(TOOL_DESCRIPTIONS.create_plan).toMatch(/archived as abandoned/);
    expect(TOOL_DESCRIPTIONS.update_subtask_state).toContain("'finish_subtask'");
    expect(TOOL_DESCRIPTIONS.update_subtask_state).toMatch(/Only one subtask can be in progress/);
    expect(TOOL_DESCRIPTIONS.finish_subtask).toMatch(/earlier subtask must be done or abandoned/);
    expect(TOOL_DESCRIPTIONS.revise_current_plan).toMatch(/number of subtasks to append/);
    expect(TOOL_DESCRIPTIONS.revise_current_plan).toMatch(/keeps its state and outcome/);
    expect(TOOL_DESCRIPTIONS.revise_current_plan).toMatch(/never before the subtask in progress/);
    expect(TOOL_DESCRIPTIONS.finish_plan).toContain("'view_historical_plans'");
    expect(TOOL_DESCRIPTIONS.recover_historical_plan).toMatch(/archived \(as abandoned/);
    expect(TOOL_DESCRIPTIONS.view_historical_plans).toMatch(/id, name, creation time, description and state/);
  });

  it("ask for concrete outcomes, and send 'done' requests to finish_subtask", () => {
    expect(ARGUMENT_DESCRIPTIONS.subtaskOutcome).toMatch(/not a description of what you did/);
    expect(ARGUMENT_DESCRIPTIONS.subtaskIdx).toMatch(/0-based/);
    expect(DONE_NEEDS_FINISH_SUBTASK).toContain("'finish_subtask'");
  });

  it("under plan approval, tell the model the user reviews plans and what edits and rejections look like", () => {
    expect(CREATE_PLAN_APPROVAL_NOTE).toMatch(/approve/);
    expect(CREATE_PLAN_APPROVAL_NOTE).toMatch(/edit.*says what they changed/);
    expect(CREATE_PLAN_APPROVAL_NOTE).toMatch(/reject.*feedback.*new plan/);
  });
});
