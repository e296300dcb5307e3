import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { RunInputError } from "../runs/run-input-error.js";

/**
 * Holds an eval's --out folder for this process: two evals writing one results.jsonl would run the
 * same trials twice. A lock left by a killed process (its pid gone) is taken over.
 */
export function lockOutFolder(out: string): () => void {
  const path = join(out, "eval.lock");
  for (;;) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const pid = Number(readFileSync(path, "utf8").trim());
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
      throw new RunInputError(`another eval (process ${pid}) is writing to ${out}; wait for it, or give another --out`);
    }
    rmSync(path, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
