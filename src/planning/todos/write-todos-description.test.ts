import { describe, expect, it } from "vitest";
import { writeTodosDescription } from "./write-todos-description.js";

const variants = [
  { ids: false, recited: true },
  { ids: false, recited: false },
  { ids: true, recited: true },
];

describe("write_todos description", () => {
  it.each(variants)("discourages use for work under three steps at its start and its end (%o)", (opts) => {
    const lines = writeTodosDescription(opts).split("\n");
    expect(lines[0]).toMatch(/fewer than three steps/);
    expect(lines.at(-1)).toMatch(/fewer than three steps.*do not use/);
  });

  it.each(variants)("carries the rules on updating, focus, blocking and answering (%o)", (opts) => {
    const text = writeTodosDescription(opts);
    expect(text).toMatch(/moment an item changes/);
    expect(text).toMatch(/never save several changes/i);
    expect(text).toMatch(/exactly one item in_progress until every item is completed/);
    expect(text).toMatch(/no failed status/i);
    expect(text).toMatch(/blocked, leave it in_progress and add a new item/);
    expect(text).toMatch(/not the answer.*After your last write_todos call, give the user your answer/);
    expect(text).toMatch(/at most once per turn/i);
  });

  it("names the three statuses and full replacement by default", () => {
    const text = writeTodosDescription({ ids: false, recited: true });
    expect(text).toMatch(/replaces the whole list/);
    for (const status of ["pending", "in_progress", "completed"]) expect(text).toContain(status);
    expect(text).not.toMatch(/`updates`/);
  });

  it("explains ids and the patch form only when ids are on", () => {
    const text = writeTodosDescription({ ids: true, recited: true });
    expect(text).toMatch(/stable id/);
    expect(text).toMatch(/`todos` with the complete list/);
    expect(text).toMatch(/`updates` with only the items that change/);
  });

  it("mentions the recitation only when the list is recited", () => {
    expect(writeTodosDescription({ ids: false, recited: true })).toMatch(/shown to you at the end of every request/);
    expect(writeTodosDescription({ ids: false, recited: false })).not.toMatch(/shown to you/);
  });
});
