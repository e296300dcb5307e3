import { CliError } from "./cli-error.js";
import { modelsFor } from "./model-option.js";
import { cliMcpConnections, cliTools, openCliStores } from "./run-command.js";
import { exitCodeOf } from "./run-endings.js";
import { restateSdkMissing } from "./restate-ingress.js";

export type RestateServeOptions = { database: string; store?: string; port: number; host: string; name?: string; register?: string; identityKey?: string[] };

/**
 * `stepwise restate serve`: serves Stepwise runs to a Restate server (the StepwiseRun workflow) until
 * Ctrl-C, their records and events in the store the viewer reads. With `--register`, registers itself
 * with Restate's admin API once it listens.
 */
export async function restateServeCommand(opts: RestateServeOptions, io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): Promise<number> {
  // Loaded here, not with the CLI: the SDK is an optional peer, needed only by this command.
  const restate = await import("../integrations/restate/restate-endpoint.js").catch(restateSdkMissing);
  const stores = await openCliStores(opts);
  const mcp = cliMcpConnections(opts.database, io);
  const close = async () => {
    await mcp.close();
    await stores.close();
  };
  let endpoint;
  try {
    endpoint = await restate.serveRestateRuns({
      stores,
      models: modelsFor,
      tools: cliTools(opts.database, mcp),
      port: opts.port,
      host: opts.host,
      ...(opts.name ? { name: opts.name } : {}),
      ...(opts.identityKey ? { identityKeys: opts.identityKey } : {}),
      // The SDK's errors only: its lines per invocation would drown the terminal, and its warning about
      // unsigned requests is said once below.
      logger: (meta, message: unknown, ...more: unknown[]) => {
        if (meta.level === "error" && !meta.replaying) io.stderr.write(`stepwise: restate: ${[message, ...more].map(String).join(" ").split("\n")[0]}\n`);
      },
      onWarning: (message) => io.stderr.write(`stepwise: ${message}\n`),
    });
  } catch (error) {
    await close();
    throw new CliError(`cannot serve on ${opts.host}:${opts.port}: ${error instanceof Error ? error.message : String(error)}`, exitCodeOf("failed"));
  }
  const stop = async () => {
    await endpoint.close();
    await close();
  };
  if (opts.register) {
    try {
      await restate.registerRestateDeployment(opts.register, endpoint.url);
    } catch (error) {
      await stop();
      throw new CliError(error instanceof Error ? error.message : String(error), exitCodeOf("failed"));
    }
  }
  const registered = opts.register ? `registered with ${opts.register}` : `register it: curl <restate admin, :9070>/deployments -H 'content-type: application/json' -d '{"uri": "${endpoint.url}"}'`;
  io.stdout.write(`Stepwise runs on Restate at ${endpoint.url}, runs in ${stores.location}; ${registered}  (Ctrl-C to stop)\n`);
  if (!opts.identityKey) io.stderr.write("stepwise: requests are not checked for Restate's signature (--identity-key): keep the port where only Restate reaches it\n");
  await new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      io.stderr.write("stopping; Restate resumes the runs in progress where a service is registered\n");
      void stop().then(resolve);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
  return 0;
}
