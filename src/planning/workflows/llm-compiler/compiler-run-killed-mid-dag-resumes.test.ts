import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startResumableRun } from "../test-support/child-process.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("an LLM-compiler run killed with kill -9 mid-DAG", () => {
  it("resumes from its file checkpoint without rerunning finished tasks; the write in flight is answered as interrupted, never made again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stepwise-compiler-kill-"));
    dirs.push(dir);
    const first = startResumableRun("compiler", dir, "start");
    // Tasks 1 and 2 are checkpointed before their end is printed; task 3 (wait) is still running.
    await first.printed("step-end 1");
    await first.printed("step-end 2");
    await first.printed("waiting c");
    first.process.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    expect(readFileSync(join(dir, "calls"), "utf8").trim().split("\n").sort()).toEqual(["note a", "note b", "wait c"]);

    const second = startResumableRun("compiler", dir, "resume");
    const { code, stdout, stderr } = await second.exited;
    expect(code, stderr).toBe(0);
    const outcome = JSON.parse(stdout.split("outcome ")[1] ?? "") as { text: string; stopReason: string; steps: string[]; results: string[] };
    expect(outcome).toMatchObject({ text: "combined a, b, c and d", stopReason: "final" });
    expect(outcome.steps.sort()).toEqual(["1", "2", "3", "4"]);
    // Every call was made once: the one in flight when the process died may have taken effect, so it
    // is reported interrupted, and the task that needs its result is not run on it.
    expect(readFileSync(join(dir, "calls"), "utf8").trim().split("\n").sort()).toEqual(["note a", "note b", "wait c"]);
    expect(outcome.results.slice(2)).toEqual([expect.stringMatching(/^Interrupted: /), "Not run: task 3, whose result it needs, failed."]);
    expect(stdout).not.toMatch(/^step-end [12]$/m);
  });
});
