import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, freshHome, runCli, type CliResult } from "./cli-harness.js";
import { startOAuthMcpServer } from "./oauth-mcp-server.js";

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/**
 * Runs the CLI and plays the user's browser: when it prints the authorization link, follows it (the
 * authorization server approves at once) and then the redirect back to the CLI's loopback port.
 */
function runAuthorizing(args: string[], home: string): Promise<CliResult & { browserSaw: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: home,
      env: { PATH: process.env["PATH"] ?? "", HOME: home, STEPWISE_HOME: home },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let browserSaw = "";
    let browsing: Promise<void> | undefined;
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const link = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stderr)?.[1];
      if (link && !browsing) {
        browsing = (async () => {
          const approved = await fetch(link, { redirect: "manual" });
          const back = approved.headers.get("location");
          if (approved.status !== 302 || !back) throw new Error(`the authorization server answered ${approved.status}`);
          browserSaw = await (await fetch(back)).text();
        })();
        browsing.catch(reject);
      }
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, browserSaw }));
    child.stdin.end();
  });
}

describe("stepwise run --mcp with a server behind OAuth", () => {
  it("authorizes once through the browser and the loopback redirect, then reuses the stored token; never shows it", async () => {
    const server = await startOAuthMcpServer();
    stops.push(server.stop);
    const home = freshHome();
    const args = ["run", "Report", "--model", "scripted:demo", "--mcp", `secure=${server.url}`];

    const first = await runAuthorizing(args, home);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("needs your authorization. Open this link to allow Stepwise:");
    expect(first.browserSaw).toBe("Stepwise is authorized. You can close this tab.");
    expect(server.issued).toMatchObject({ registrations: 1, authorizations: 1 });
    expect(server.issued.tokens).toHaveLength(1);
    const [token] = server.issued.tokens as [string];
    expect(server.issued.bearersSeen).toContain(token);

    // Kept in the Stepwise home, readable by the user alone.
    const dir = join(home, "mcp-oauth");
    const [file] = readdirSync(dir);
    expect(statSync(join(dir, file!)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, file!), "utf8")).toContain(token);

    const seen = server.issued.bearersSeen.length;
    const second = await runCli(args, { home });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain("authorization");
    expect(server.issued).toMatchObject({ registrations: 1, authorizations: 1 });
    expect(server.issued.tokens).toEqual([token]);
    expect(server.issued.bearersSeen.slice(seen).every((bearer) => bearer === token)).toBe(true);
    expect(server.issued.bearersSeen.length).toBeGreaterThan(seen);

    for (const output of [first.stdout, first.stderr, second.stdout, second.stderr]) expect(output).not.toContain(token);
  });
});
