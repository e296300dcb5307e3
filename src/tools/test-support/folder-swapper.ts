import { spawn } from "node:child_process";
import { once } from "node:events";

export type FolderSwapper = {
  /** Stops the swapping, puts the real folder back, and says how many swaps were made. */
  stop(): Promise<number>;
};

// The attacker: a second process that, in a tight loop, moves `folder` aside and puts a symbolic
// link to `outside` in its place, then moves it back. Each swap is two renames, so at any moment the
// name is the real folder, the link, or briefly nothing.
const SWAPPER = `
const fs = require("node:fs");
const [folder, outside] = process.argv.slice(1);
const aside = folder + ".real", link = folder + ".link";
let swaps = 0;
function restore() {
  try { if (fs.lstatSync(folder).isSymbolicLink()) fs.unlinkSync(folder); } catch {}
  try { fs.renameSync(aside, folder); } catch {}
  try { fs.unlinkSync(link); } catch {}
}
process.on("SIGTERM", () => { restore(); process.stdout.write("swaps " + swaps + "\\n", () => process.exit(0)); });
let announced = false;
function burst() {
  for (let i = 0; i < 200; i++) {
    try {
      fs.renameSync(folder, aside);
      fs.symlinkSync(outside, link);
      fs.renameSync(link, folder);
      fs.unlinkSync(folder);
      fs.renameSync(aside, folder);
      swaps++;
    } catch {
      // A tool created the folder anew while it was away: put the real one back and go on.
      try { fs.unlinkSync(link); } catch {}
      try { if (fs.lstatSync(folder).isSymbolicLink()) fs.unlinkSync(folder); } catch {}
      try { fs.renameSync(aside, folder); } catch {}
      try { fs.rmSync(aside, { recursive: true, force: true }); } catch {}
    }
  }
  if (!announced && swaps > 0) { announced = true; process.stdout.write("swapping\\n"); }
  setImmediate(burst);
}
burst();
`;

/** Starts the swapping process and resolves once it has swapped the folder for the first time. */
export async function startFolderSwapper(folder: string, outside: string): Promise<FolderSwapper> {
  const child = spawn(process.execPath, ["-e", SWAPPER, folder, outside], { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  child.stdout.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the swapper exited (${code}) before swapping`)));
    child.stdout.on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("swapping\n")) resolve();
    });
  });
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        await exited;
      }
      return Number(/swaps (\d+)/.exec(output)?.[1] ?? Number.NaN);
    },
  };
}
