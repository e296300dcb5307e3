import { workRuns } from "../runs/run-worker.js";
import { openRuns } from "../runs/runs.js";
import { modelsFor } from "./model-option.js";
import { cliMcpConnections, cliTools, openCliStores } from "./run-command.js";

/**
 * `stepwise worker`: drives the runs in the store that need a driver (their own died, or their
 * decisions came from the viewer or the API) until Ctrl-C, printing one line per run.
 */
export async function workerCommand(
  opts: { database: string; store?: string; once: boolean },
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const stores = await openCliStores(opts);
  const mcp = cliMcpConnections(opts.database, io);
  const runs = openRuns({ store: stores, models: modelsFor, tools: cliTools(opts.database, mcp), onWarning: (message) => io.stderr.write(`stepwise: ${message}\n`) });
  const controller = new AbortController();
  const stop = () => {
    io.stderr.write("stopping the worker after the current step…\n");
    controller.abort();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  io.stdout.write(`stepwise worker on ${stores.location}${opts.once ? "" : " (Ctrl-C to stop)"}\n`);
  try {
    await workRuns(runs, {
      signal: controller.signal,
      once: opts.once,
      onRun: (run, result) =>
        io.stdout.write(
          result instanceof Error
            ? `run ${run.id} (${run.strategy}): failed: ${result.message.split("\n")[0]}\n`
            : `run ${run.id} (${run.strategy}): ${result.status}\n`,
        ),
    });
    return 0;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await runs.close();
    await mcp.close();
    await stores.close();
  }
}
