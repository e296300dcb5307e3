// One worker process of the fleet benchmark (bench/fleet.ts): what `stepwise worker --concurrency N`
// does (openRuns + workRuns), with the benchmark's scripted model and ledger tool, which the CLI
// cannot load. Usage: fleet-worker.ts <store-url> <ledger-file> <concurrency> <lease-ms> <steps> <model-ms>
// Prints "ready" once its stores are open, then waits for a line on stdin before it takes work
// (so that the clock starts with every worker loaded); SIGTERM hands its runs back, as the CLI's does.
import { createInterface } from "node:readline";
import { openRuns } from "../src/runs/runs.js";
import { workRuns } from "../src/runs/run-worker.js";
import { shutdownSignal } from "../src/runs/shutdown-signal.js";
import { fleetModel, ledgerTool } from "../src/runs/test-support/fleet-workload.js";

const [store = "", ledgerFile = "", concurrency = "1", leaseMs = "30000", steps = "10", modelMs = "200"] = process.argv.slice(2);
const name = `fleet-worker-${process.pid}`;
// One ledger tool for every run this worker drives, as a user's stateless tool would be made.
const ledger = ledgerTool(ledgerFile, name);
const runs = openRuns({
  store,
  leaseMs: Number(leaseMs),
  models: () => {
    const model = fleetModel(Number(steps), Number(modelMs));
    return () => model;
  },
  tools: () => [ledger],
});
await runs.stores.runs.nextClaimInMs();
const shutdown = shutdownSignal();
process.stdout.write("ready\n");
await new Promise((resolve) => createInterface({ input: process.stdin }).once("line", resolve));
await workRuns(runs, { signal: shutdown.signal, concurrency: Number(concurrency) });
shutdown.dispose();
await runs.close();
process.exit(0);
