// Shared by the built-in data tasks' checks: the workspace's output files against the task's solution/files/.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const normalized = (text) => text.replace(/\r\n/g, "\n").replace(/\n+$/, "").split("\n");

/** Exits 0 when every path matches the task's reference line for line; else 1, naming the first line that differs. */
export function checkOutputFiles(workspace, paths) {
  for (const path of paths) {
    const written = join(workspace, path);
    if (!existsSync(written)) {
      console.log(`${path} was not written`);
      process.exit(1);
    }
    const want = normalized(readFileSync(join("solution", "files", path), "utf8"));
    const have = normalized(readFileSync(written, "utf8"));
    const at = want.findIndex((line, i) => line !== have[i]);
    if (at >= 0 || have.length !== want.length) {
      const line = at >= 0 ? at : want.length;
      console.log(`${path} line ${line + 1} is ${JSON.stringify(have[line] ?? "(missing)")}, expected ${JSON.stringify(want[line] ?? "(no more lines)")}`);
      process.exit(1);
    }
  }
  console.log("output files match");
}
