import { describe, expect, it } from "vitest";
import { writeTodosDescription } from "./write-todos-description.js";

describe("write_todos description", () => {
  it.each([{ ids: true }, { ids: false }])("keeps the rules on when to use it, focus, freshness and blocking (%o)", (opts) => {
    const text = writeTodosDescription(opts);
    expect(text.split("\n")[0]).toMatch(/Only for tasks of three or more steps/);
    expect(text).toMatch(/one item in_progress/);
    expect(text).toMatch(/update items the moment they change/);
    expect(text).toMatch(/If blocked, keep it in_progress and add an item for the blocker/);
  });

  it("with ids, says to create the list once and then send only changes by id", () => {
    const text = writeTodosDescription({ ids: true });
    expect(text).toMatch(/Create the list with `todos`, then send only changes in `updates` as \{id: status\}/);
    expect(text).toMatch(/`todos` again to add, drop or reorder/);
  });

  it("without ids, says each call replaces the whole list", () => {
    const text = writeTodosDescription({ ids: false });
    expect(text).toMatch(/replaces the whole list/);
    expect(text).not.toMatch(/`updates`/);
  });
});
