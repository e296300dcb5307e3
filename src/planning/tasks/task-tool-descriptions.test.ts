import { describe, expect, it } from "vitest";
import { countTokens } from "../../../bench/tokens.js";
import { TASK_CREATE_DESCRIPTION, TASK_GET_DESCRIPTION, TASK_LIST_DESCRIPTION, TASK_UPDATE_DESCRIPTION } from "./task-tool-descriptions.js";

describe("task board tool descriptions", () => {
  it("TaskCreate says when to use the board (three or more steps) and when not to", () => {
    expect(TASK_CREATE_DESCRIPTION).toMatch(/three or more/);
    expect(TASK_CREATE_DESCRIPTION).toMatch(/Skip the board for a single quick action/);
    expect(TASK_CREATE_DESCRIPTION).toMatch(/subject.*imperative/);
  });

  it("says that one reply's TaskCreate calls get ids in call order, and that completed tasks stay completed", () => {
    expect(TASK_CREATE_DESCRIPTION).toMatch(/in one reply get their ids in the order of the calls/);
    expect(TASK_UPDATE_DESCRIPTION).toMatch(/completed task stays completed.*create a new task/);
  });

  it("TaskUpdate tells the model to start with in_progress, complete only when fully done, and add a task when blocked", () => {
    expect(TASK_UPDATE_DESCRIPTION).toMatch(/"in_progress" right before you start/);
    expect(TASK_UPDATE_DESCRIPTION).toMatch(/"completed" only when the task is fully done/);
    expect(TASK_UPDATE_DESCRIPTION).toMatch(/blocked, leave the task "in_progress" and create a new task/);
    expect(TASK_UPDATE_DESCRIPTION).toMatch(/"deleted"/);
    expect(TASK_UPDATE_DESCRIPTION).toMatch(/advisory/);
    expect(TASK_UPDATE_DESCRIPTION).toMatch(/null is removed/);
  });

  it("TaskUpdate asks for the result of a completed task in metadata.result, which becomes its outcome", () => {
    expect(TASK_UPDATE_DESCRIPTION).toMatch(/metadata\.result.*outcome/);
  });

  it("TaskList points at the lowest-numbered unblocked task and explains done blockers", () => {
    expect(TASK_LIST_DESCRIPTION).toMatch(/lowest-numbered pending task with no open blockers/);
    expect(TASK_LIST_DESCRIPTION).toMatch(/completed are shown as done/);
    expect(TASK_GET_DESCRIPTION).toMatch(/before starting a task/);
  });

  it("stays compact: all four together under 800 tokens", () => {
    const total = [TASK_CREATE_DESCRIPTION, TASK_GET_DESCRIPTION, TASK_LIST_DESCRIPTION, TASK_UPDATE_DESCRIPTION].map(countTokens).reduce((a, b) => a + b);
    expect(total).toBeLessThan(800);
  });
});
