import { createServer, type Http2Server, type ServerHttp2Session } from "node:http2";
import * as restate from "@restatedev/restate-sdk";
import { boundedQuote } from "../../core/bounded-quote.js";
import { restateRunService, type RestateRunServiceOptions } from "./restate-run-service.js";

export type RestateEndpointOptions = RestateRunServiceOptions & {
  /** Default 9080, the port Restate's docs give services; 0 picks a free one. */
  port?: number;
  /** Default 127.0.0.1: Restate reaches the service here, and nobody else should. */
  host?: string;
  /**
   * Restate's public keys (`publickeyv1_…`): only requests it signed with one are taken. Without,
   * whoever reaches the port can run tasks with this process's tools.
   */
  identityKeys?: string[];
  /** Where the SDK's own log lines go (default: the console). */
  logger?: restate.LoggerTransport;
};

/** A service process serving Stepwise runs to Restate: where it listens, and how to stop it. */
export type RestateEndpoint = {
  /** What to register with Restate (`http://host:port`). */
  readonly url: string;
  /** Stops taking invocations; those running stop with the process (Restate retries them elsewhere). */
  close(): Promise<void>;
};

/**
 * Serves the StepwiseRun workflow over HTTP/2 without TLS (what restate-server speaks to a service
 * it was given as `http://…`), and resolves once it listens.
 */
export async function serveRestateRuns(opts: RestateEndpointOptions): Promise<RestateEndpoint> {
  const { port = 9080, host = "127.0.0.1", identityKeys, logger, ...service } = opts;
  const handler = restate.createEndpointHandler({
    services: [restateRunService(service)],
    ...(identityKeys?.length ? { identityKeys } : {}),
    ...(logger ? { logger } : {}),
  });
  const server: Http2Server = createServer(handler);
  // Restate keeps its connections open: closing ends them, or the server would wait for them for ever.
  const sessions = new Set<ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as { port: number }).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
      }),
  };
}

/**
 * Registers the service at `uri` with the Restate server whose admin API is at `adminUrl` (default
 * port 9070), as `restate deployments register` does; again with the same uri, it takes the
 * service's current handlers. Returns the deployment's id.
 */
export async function registerRestateDeployment(adminUrl: string, uri: string): Promise<string> {
  const response = await fetch(`${adminUrl.replace(/\/+$/, "")}/deployments`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ uri, force: true }),
  }).catch((error: unknown) => {
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error instanceof Error ? error.message : String(error));
    throw new Error(`cannot reach Restate's admin API at ${adminUrl} to register ${uri}: ${cause}`);
  });
  const body = await response.text();
  if (!response.ok) throw new Error(`Restate at ${adminUrl} refused to register ${uri} (HTTP ${response.status}): ${boundedQuote(body, 500)}`);
  return (JSON.parse(body) as { id: string }).id;
}
