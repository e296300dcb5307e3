import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { PlanNotebook } from "./plan-notebook.js";

async function notebookWithArchived(count: number): Promise<{ call: (args?: object) => Promise<string>; ids: string[] }> {
  const notebook = new PlanNotebook();
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    await notebook.createPlan({
      name: `Plan ${i}`,
      description: `Release ${i}: ${"cut, test, publish and announce it. ".repeat(20)}`,
      expectedOutcome: "shipped",
      subtasks: [{ name: "Ship", description: "ship it", expectedOutcome: "shipped" }],
    });
    ids.push(notebook.currentPlan!.id);
    if (i % 3 === 0) await notebook.finishSubtask(0, "shipped");
    await notebook.finishPlan(i % 3 === 0 ? "done" : "abandoned", "ended");
  }
  const tool = notebook.tools().find((t) => t.name === "view_historical_plans")!;
  return { call: async (args = {}) => (await tool.invoke(args)).text, ids };
}

describe("view_historical_plans stays small however many plans pile up", () => {
  it("lists the 20 newest of 300 archived plans in about 2,000 tokens, after a summary of what was left out", async () => {
    const { call, ids } = await notebookWithArchived(300);
    const text = await call();
    expect(text.split("\n")[0]).toBe(
      "300 archived plans (100 done, 200 abandoned); showing the 20 newest. Pass state or a larger limit (up to 200) to see others.",
    );
    expect(text).toContain(ids[299]);
    expect(text).toContain(ids[280]);
    expect(text).not.toContain(ids[279]);
    expect(encode(text).length).toBeLessThan(2_500);
    expect(text).toContain("more characters left out");
  });

  it("filters by how plans ended and takes a limit", async () => {
    const { call, ids } = await notebookWithArchived(30);
    const done = await call({ state: "done", limit: 3 });
    expect(done.split("\n")[0]).toMatch(/^30 archived plans \(10 done, 20 abandoned\); showing the 3 newest done\./);
    expect(done.match(/state: done/g)).toHaveLength(3);
    expect(done).toContain(ids[29]);
    expect(await call({ limit: 500 })).toMatch(/limit/);
  });

  it("keeps the reference's plain list, with no summary, when every plan fits", async () => {
    const { call } = await notebookWithArchived(2);
    const text = await call();
    expect(text.split("\n")).toHaveLength(4);
    expect(text.startsWith("- id: ")).toBe(true);
  });
});
