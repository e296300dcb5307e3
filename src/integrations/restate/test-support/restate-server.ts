import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerRestateDeployment } from "../restate-endpoint.js";

/** A restate-server of a test's own: its ports, its data folder, and how to stop it. */
export type RestateServer = {
  /** Where services are invoked (`POST {ingressUrl}/{service}/{key}/{handler}`). */
  readonly ingressUrl: string;
  /** Where deployments are registered and invocations inspected. */
  readonly adminUrl: string;
  /** Registers the Restate endpoint at `uri` (a service process on this machine); returns the deployment id. */
  register(uri: string): Promise<string>;
  /** Stops the server (SIGTERM, then waits for it to exit) and removes its data folder. */
  stop(): Promise<void>;
};

// The binary ships inside the npm package for this platform (@restatedev/restate-server-linux-x64 and its siblings).
const SERVER_BINARY = createRequire(import.meta.url).resolve(`@restatedev/restate-server-${process.platform}-${process.arch}/bin/restate-server`);

/**
 * Runs the server under a shell that stops it once its stdin closes, then removes its data folder:
 * when the test process dies, even by SIGKILL, its end of the pipe closes and the server goes with
 * it instead of holding its ports and files.
 */
const GUARD = `"$0" "$@" </dev/null & server=$!
read -r _
kill -TERM "$server" 2>/dev/null
wait "$server"
rm -rf "$RESTATE_TEST_DIR"`;

/**
 * Starts restate-server from node_modules on free loopback ports with a fresh data folder, and
 * resolves once its admin API and ingress answer. Retries back off to at most half a second, so an
 * invocation whose service process was killed goes on soon after another one is listening.
 */
export async function startRestateServer(): Promise<RestateServer> {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-restate-"));
  const [admin, ingress, fabric] = await freePorts(3);
  const config = join(dir, "restate.toml");
  writeFileSync(
    config,
    [
      `cluster-name = "stepwise-test"`,
      // Two partitions and a small cache: a test server on a shared machine.
      `default-num-partitions = 2`,
      `rocksdb-total-memory-size = "256 MiB"`,
      `disable-telemetry = true`,
      `bind-address = "127.0.0.1:${fabric}"`,
      `advertised-address = "http://127.0.0.1:${fabric}/"`,
      `[default-retry-policy]`,
      `initial-interval = "50ms"`,
      `max-interval = "500ms"`,
      // Enough for a replacement service process to start on a busy machine before the invocation pauses.
      `max-attempts = 1000`,
      `[admin]`,
      `bind-address = "127.0.0.1:${admin}"`,
      `disable-web-ui = true`,
      `[ingress]`,
      `bind-address = "127.0.0.1:${ingress}"`,
    ].join("\n"),
  );
  const args = ["--config-file", config, "--base-dir", join(dir, "data"), "--listen-mode", "tcp", "--no-logo"];
  const env = { ...process.env, RESTATE_TEST_DIR: dir, RESTATE_LOG_DISABLE_ANSI_CODES: "true", RESTATE_LOG_FORMAT: "compact" };
  const child = spawn("/bin/sh", ["-c", GUARD, SERVER_BINARY, ...args], { stdio: ["pipe", "pipe", "pipe"], env });
  let log = "";
  const keep = (chunk: Buffer) => {
    log += chunk.toString();
    if (log.length > 200_000) log = log.slice(-100_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const adminUrl = `http://127.0.0.1:${admin}`;
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end("stop\n");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilAnswering(child, exited, [`${adminUrl}/health`, `${ingressUrl}/restate/health`], () => log);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    ingressUrl,
    adminUrl,
    stop,
    register: (uri) => registerRestateDeployment(adminUrl, uri),
  };
}

/** Polls the health endpoints until each answers 200; fails at once when the server exits. */
async function waitUntilAnswering(child: ChildProcess, exited: Promise<void>, urls: string[], log: () => string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (const url of urls) {
    for (;;) {
      if (gone) throw new Error(`restate-server exited (${String(child.exitCode ?? child.signalCode)}) before ${url} answered:\n${log().slice(-4000)}`);
      const ok = await fetch(url).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Ports the kernel hands out as free on 127.0.0.1 (all held at once, so they differ). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  const ports = await Promise.all(
    servers.map(
      (server) =>
        new Promise<number>((resolve, reject) => {
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
        }),
    ),
  );
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
