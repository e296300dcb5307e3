import { writeFileSync } from "node:fs";
import path from "node:path";
import { startSwapper } from "./swapper.js";
import { tempWorkspace } from "./temp-workspace.js";

export const OUTSIDE_SECRET = "outside-secret-3141";
const OUTSIDE_ONLY = "outside-only-marker.txt";

export type SwapRace = {
  /** Tool calls made while the folder was being swapped. */
  calls: number;
  /** How many of them were refused or failed (the swap was seen). */
  refused: number;
  /** Swaps the other process made. */
  swaps: number;
  /** Calls that read, listed or changed something outside the workspace, with what they returned. */
  escapes: string[];
};

/**
 * The attack from outside review: while a second process swaps the workspace folder `d` for a link
 * to a folder outside, and the file `f.txt` for a link to a file outside, every file tool is called
 * on paths through them, `rounds` times each. Any outside
 * content in a result, or any change to the outside folder, is an escape.
 */
export async function runSwapRace(rounds: number): Promise<SwapRace> {
  const ws = tempWorkspace({ "d/secret.txt": "inside text", "d/target.txt": "marker", "d/sub/note.txt": "inside note", "f.txt": "marker" });
  try {
    writeFileSync(path.join(ws.outside, "secret.txt"), OUTSIDE_SECRET);
    writeFileSync(path.join(ws.outside, "target.txt"), `marker ${OUTSIDE_SECRET}`);
    writeFileSync(path.join(ws.outside, OUTSIDE_ONLY), OUTSIDE_SECRET);
    const before = JSON.stringify(ws.snapshot(ws.outside));
    const calls: [string, Record<string, unknown>][] = [
      ["write_file", { path: "d/new.txt", content: "written by the model" }],
      ["write_file", { path: "d/sub/deeper/new.txt", content: "written by the model" }],
      ["edit_file", { path: "d/target.txt", old_text: "marker", new_text: "marker!" }],
      ["read_file", { path: "d/secret.txt" }],
      ["list_dir", { path: "d", recursive: true }],
      ["search", { pattern: "secret", path: "d" }],
      ["search", { pattern: OUTSIDE_SECRET.slice(0, 14), path: "." }],
      ["read_file", { path: "f.txt" }],
      ["edit_file", { path: "f.txt", old_text: "marker", new_text: "marker!" }],
      ["write_file", { path: "f.txt", content: "marker" }],
    ];
    const race: SwapRace = { calls: 0, refused: 0, swaps: 0, escapes: [] };
    const swapper = await startSwapper([
      { place: path.join(ws.root, "d"), target: ws.outside },
      { place: path.join(ws.root, "f.txt"), target: path.join(ws.outside, "target.txt") },
    ]);
    try {
      for (let round = 0; round < rounds; round++) {
        for (const [name, args] of calls) {
          const result = await ws.tool(name).invoke(args);
          race.calls++;
          if (result.isError) race.refused++;
          if (result.text.includes(OUTSIDE_SECRET) || result.text.includes(OUTSIDE_ONLY)) race.escapes.push(`${name}: ${result.text.slice(0, 160)}`);
        }
        const now = JSON.stringify(ws.snapshot(ws.outside));
        if (now !== before) {
          race.escapes.push(`round ${round}: the outside folder changed: ${now.slice(0, 300)}`);
          break;
        }
      }
    } finally {
      race.swaps = await swapper.stop();
    }
    return race;
  } finally {
    ws.remove();
  }
}
