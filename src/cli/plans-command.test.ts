import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { expect, it } from "vitest";
import { Plan } from "../planning/notebook/plan.js";
import { SqlitePlanStore } from "../stores/sqlite-plan-store.js";
import { plansList } from "./plans-command.js";

it("plans list shows at most its limit and says how many plans were left out", async () => {
  const database = join(mkdtempSync(join(tmpdir(), "stepwise-plans-")), "stepwise.db");
  const storage = new SqlitePlanStore(database, { scope: "mcp:big" });
  for (let i = 1; i <= 70; i++) {
    await storage.add(new Plan({ name: `Plan ${i}`, description: "d", expectedOutcome: "o", subtasks: [] }).toJSON());
  }
  await storage.close();
  const read = async (limit?: number) => {
    let written = "";
    const out = new Writable({ write: (chunk: Buffer, _encoding, done) => ((written += chunk.toString()), done()) });
    await plansList({ database, ...(limit ? { limit } : {}) }, out);
    return written.trimEnd().split("\n");
  };
  const lines = await read();
  expect(lines).toHaveLength(51);
  expect(lines.at(-1)).toBe("… 20 more of 70 plans not shown; pass --limit to see more.");
  expect(await read(100)).toHaveLength(70);
  expect((await read(3)).at(-1)).toBe("… 67 more of 70 plans not shown; pass --limit to see more.");
});
