import { describe, expect, it } from "vitest";
import { Plan } from "./plan.js";

const at = "2026-03-31T21:33:10.790Z";

describe("plan markdown", () => {
  const plan = new Plan({
    name: "Report",
    description: "Write a report.",
    expectedOutcome: "A report.",
    state: "in_progress",
    createdAt: at,
    subtasks: [
      { name: "Gather", description: "Collect data.", expectedOutcome: "Data.", state: "done", outcome: "12 sources", createdAt: at, finishedAt: at },
      { name: "Draft", description: "Write.", expectedOutcome: "A draft.", state: "in_progress", createdAt: at },
      { name: "Polish", description: "Edit.", expectedOutcome: "Final.", state: "abandoned", createdAt: at },
      { name: "Publish", description: "Post.", expectedOutcome: "Online.", createdAt: at },
    ],
  });

  it("prints the brief form with one checkbox line per subtask state", () => {
    expect(plan.toMarkdown()).toBe(
      [
        "# Report",
        "**Description**: Write a report.",
        "**Expected Outcome**: A report.",
        "**State**: in_progress",
        "**Created At**: 2026-03-31 21:33:10.790",
        "## Subtasks",
        "- [x] Gather",
        "- [ ] [WIP]Draft",
        "- [ ] [Abandoned]Polish",
        "- [ ] Publish",
      ].join("\n"),
    );
  });

  it("adds indented details in the detailed form, and the outcome once done", () => {
    expect(plan.subtasks[0]!.toMarkdown(true)).toBe(
      [
        "- [x] Gather",
        "\t- Created At: 2026-03-31 21:33:10.790",
        "\t- Description: Collect data.",
        "\t- Expected Outcome: Data.",
        "\t- State: done",
        "\t- Finished At: 2026-03-31 21:33:10.790",
        "\t- Outcome: 12 sources",
      ].join("\n"),
    );
    expect(plan.toMarkdown(true)).toContain("- [ ] [WIP]Draft\n\t- Created At: 2026-03-31 21:33:10.790\n\t- Description: Write.\n\t- Expected Outcome: A draft.\n\t- State: in_progress\n- [ ] [Abandoned]Polish");
  });

  it("round-trips through JSON", () => {
    expect(Plan.fromJSON(JSON.parse(JSON.stringify(plan)))).toEqual(plan);
  });
});
