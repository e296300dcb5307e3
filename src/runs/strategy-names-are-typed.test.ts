import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scriptedModel } from "../models/scripted.js";
import { openRuns, type Runs } from "./runs.js";

let dir: string | undefined;
let runs: Runs | undefined;
afterEach(async () => {
  await runs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a run's strategy", () => {
  it("is one of the strategy ids: another name does not type-check, and from untyped code it is refused with the names accepted", async () => {
    dir = mkdtempSync(join(tmpdir(), "stepwise-strategy-"));
    runs = openRuns({ store: join(dir, "stepwise.db") });
    const model = scriptedModel(["done"]);
    // @ts-expect-error "nonsense" is not a StrategyName
    await expect(runs.start({ task: "Say done", strategy: "nonsense", model, settings: { workspace: dir } })).rejects.toThrow(
      /unknown strategy "nonsense"; use one of: notebook, tasks, todos, plan-tool, plan-execute, rewoo, compiler, react/,
    );
    expect(await runs.list()).toEqual([]);
    const handle = await runs.start({ task: "Say done", strategy: "react", model, settings: { workspace: dir } });
    expect(await handle.done).toMatchObject({ stopReason: "final", text: "done" });
  });
});
