import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Every test run gets a temporary folder of its own, as TMPDIR, which the test processes (and the
 * processes they start with the environment they inherit) make their scratch folders in; it goes
 * when the run ends. Without it each run left some 200 stores, workspaces and browser profiles in
 * the machine's /tmp, and a machine that runs CI again and again fills up.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-tests-"));
  process.env["TMPDIR"] = dir;
  return () => {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      // A file system a test could not unmount (the disk-full case): leave the rest, and say so.
      console.warn(`stepwise tests: could not remove ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  };
}
