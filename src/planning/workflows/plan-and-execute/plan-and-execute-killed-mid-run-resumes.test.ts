import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startResumableRun } from "../test-support/child-process.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("a plan-and-execute run killed with kill -9 between steps", () => {
  it("resumes from its file checkpoint without redoing the finished step; the step in flight goes on from its executor's checkpoint", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stepwise-pae-kill-"));
    dirs.push(dir);
    const first = startResumableRun("plan-and-execute", dir, "start");
    await first.printed("step-end 1");
    await first.printed("waiting c");
    first.process.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    expect(readFileSync(join(dir, "calls"), "utf8").trim().split("\n")).toEqual(["note a", "wait c"]);

    const second = startResumableRun("plan-and-execute", dir, "resume");
    const { code, stdout, stderr } = await second.exited;
    expect(code, stderr).toBe(0);
    const outcome = JSON.parse(stdout.split("outcome ")[1] ?? "") as { text: string; stopReason: string; steps: string[]; results: string[] };
    expect(outcome).toMatchObject({ text: "all steps done", stopReason: "final", steps: ["1", "2", "3"] });
    // The executor of step 2 had saved its call before making it: the resumed executor is told it was
    // interrupted (it may have taken effect) and finishes the step without making it again.
    expect(readFileSync(join(dir, "calls"), "utf8").trim().split("\n")).toEqual(["note a", "wait c", "note d"]);
    expect(outcome.results[1]).toMatch(/^Interrupted: .* \(step done\)$/);
    expect(stdout).not.toMatch(/^step-end 1$/m);
  });
});
