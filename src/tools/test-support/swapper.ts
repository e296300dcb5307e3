import { spawn } from "node:child_process";
import { once } from "node:events";

export type Swapper = {
  /** Stops the swapping, puts the real files and folders back, and says how many swaps were made. */
  stop(): Promise<number>;
};

// The attacker: a second process that, in a tight loop, moves each `place` (a folder or a file)
// aside and puts a symbolic link to its `target` outside in its place, then moves it back. Each swap
// is two renames, so at any moment the name is the real thing, the link, or briefly nothing.
const SWAPPER = `
const fs = require("node:fs");
const args = process.argv.slice(1);
const pairs = [];
for (let i = 0; i < args.length; i += 2) pairs.push({ place: args[i], target: args[i + 1], aside: args[i] + ".real", link: args[i] + ".link" });
let swaps = 0;
function restore({ place, aside, link }) {
  try { fs.unlinkSync(link); } catch {}
  try { if (fs.lstatSync(place).isSymbolicLink()) fs.unlinkSync(place); } catch {}
  try { fs.renameSync(aside, place); } catch {}
  // A tool made a new folder while the real one was away: the real one goes, the loop goes on.
  try { fs.rmSync(aside, { recursive: true, force: true }); } catch {}
}
process.on("SIGTERM", () => { pairs.forEach(restore); process.stdout.write("swaps " + swaps + "\\n", () => process.exit(0)); });
let announced = false;
function burst() {
  for (let i = 0; i < 100; i++) {
    for (const pair of pairs) {
      try {
        fs.renameSync(pair.place, pair.aside);
        fs.symlinkSync(pair.target, pair.link);
        fs.renameSync(pair.link, pair.place);
        fs.unlinkSync(pair.place);
        fs.renameSync(pair.aside, pair.place);
        swaps++;
      } catch {
        restore(pair);
      }
    }
  }
  if (!announced && swaps > 0) { announced = true; process.stdout.write("swapping\\n"); }
  setImmediate(burst);
}
burst();
`;

/** Starts the swapping process and resolves once it has made its first swap. */
export async function startSwapper(swaps: { place: string; target: string }[]): Promise<Swapper> {
  const args = swaps.flatMap(({ place, target }) => [place, target]);
  const child = spawn(process.execPath, ["-e", SWAPPER, ...args], { stdio: ["ignore", "pipe", "inherit"] });
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
