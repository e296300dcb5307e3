import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { scriptedModel } from "../models/scripted.js";
import { RunBusyError } from "../stores/run-store.js";
import { workspaceTools } from "../tools/workspace-tools.js";
import { openRuns } from "./runs.js";
import { openStores } from "./store-set.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

it("renews a run's lease while its tools connect, so no other process takes over a run still starting", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-lease-"));
  dirs.push(dir);
  const file = join(dir, "stepwise.db");
  const stores = openStores(file);
  const intruder = openStores(file);
  let renewed!: () => void;
  const renewal = new Promise<"renewed">((resolve) => (renewed = () => resolve("renewed")));
  const renew = stores.runs.renewLease.bind(stores.runs);
  stores.runs.renewLease = async (lease, ttlMs) => {
    await renew(lease, ttlMs);
    renewed();
  };
  /** Another process trying to take the run: it succeeds only once the lease ran out unrenewed. */
  let connected = false;
  const takeOver = async (runId: string): Promise<"taken over" | "gave up"> => {
    while (!connected) {
      try {
        await intruder.runs.acquireLease(runId, "intruder:1:x", 60_000);
        return "taken over";
      } catch (error) {
        if (!(error instanceof RunBusyError)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    return "gave up";
  };
  let whileConnecting: string | undefined;
  const runs = openRuns({
    store: stores,
    leaseMs: 300,
    // Tools that take their time to connect (an MCP server listing, an authorization): done once the lease is renewed, or lost.
    tools: async (settings) => {
      const [run] = await stores.runs.listRuns(1);
      const trying = takeOver(run!.id);
      whileConnecting = await Promise.race([renewal, trying]);
      connected = true;
      await trying;
      return workspaceTools(settings.workspace);
    },
  });
  try {
    const handle = await runs.start({ task: "say hi", strategy: "todos", model: scriptedModel(["hi"]), settings: { workspace: dir } });
    expect(whileConnecting).toBe("renewed");
    expect(await handle.done).toMatchObject({ status: "final", text: "hi" });
  } finally {
    await runs.close();
    await intruder.close();
    await stores.close();
  }
});
