import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * Takes the consumer cache for this process until it exits: two runs at once (two checkouts on one
 * machine) would repack the one tarball and reinstall the same projects under each other. A lock
 * left by a process that is gone is taken over.
 */
export function holdCacheLock(cache: string): void {
  mkdirSync(cache, { recursive: true });
  const lock = join(cache, "lock");
  let told = false;
  for (;;) {
    try {
      const fd = openSync(lock, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      process.on("exit", () => rmSync(lock, { force: true }));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = Number(readFileSync(lock, "utf8").trim());
    if (!Number.isInteger(holder) || holder <= 0 || !isAlive(holder)) {
      rmSync(lock, { force: true });
      continue;
    }
    if (!told) console.log(`waiting for the consumer run of process ${holder}, which holds ${cache}`);
    told = true;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000);
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
