import { describe, expect, it } from "vitest";
import { runSwapRace } from "./test-support/swap-race.js";

describe("a second process swapping a workspace folder for a link to outside", () => {
  it("never lets write_file, edit_file, read_file, list_dir or search act outside (a folder and a file swapped)", async () => {
    const race = await runSwapRace(30);
    expect(race.escapes).toEqual([]);
    expect(race.calls).toBe(30 * 10);
    expect(race.swaps).toBeGreaterThan(0);
  }, 120_000);
});
