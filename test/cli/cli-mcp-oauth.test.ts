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

/** The user's browser: follows the authorization link (the server approves at once), then the redirect back to the CLI's loopback port. */
async function approve(link: string): Promise<string> {
  const approved = await fetch(link, { redirect: "manual" });
  const back = approved.headers.get("location");
  if (approved.status !== 302 || !back) throw new Error(`the authorization server answered ${approved.status}`);
  return (await fetch(back)).text();
}

/** Runs the CLI and plays the browser (`browse`) when it prints the authorization link. */
function runAuthorizing(args: string[], home: string, browse: (link: string) => Promise<string> = approve): Promise<CliResult & { browserSaw: string }> {
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
        browsing = (async () => void (browserSaw = await browse(link)))();
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

  it("ignores a callback whose state is not the one sent (any local page could abort the authorization), and shows a refusal bounded and escaped", async () => {
    const server = await startOAuthMcpServer();
    stops.push(server.stop);
    const args = ["run", "Report", "--model", "scripted:demo", "--mcp", `secure=${server.url}`];
    const callback = (link: string, params: Record<string, string>) => {
      const redirect = new URL(new URL(link).searchParams.get("redirect_uri") ?? "");
      for (const [name, value] of Object.entries(params)) redirect.searchParams.set(name, value);
      return fetch(redirect);
    };
    const hostile = `denied\r\x1b[2K\x1b]0;pwned\x07${"x".repeat(10_000)}`;

    // A page on another local port loads the callback (an <img>, say) without the state: refused, and the user goes on.
    let forged: Response | undefined;
    const attacked = await runAuthorizing(args, freshHome(), async (link) => {
      forged = await callback(link, { error: "access_denied", error_description: hostile });
      return approve(link);
    });
    expect(forged?.status).toBe(400);
    expect(await forged?.text()).toContain("the state does not match the authorization Stepwise started");
    expect(attacked.code, attacked.stderr).toBe(0);
    expect(attacked.browserSaw).toBe("Stepwise is authorized. You can close this tab.");

    // The authorization server's own refusal (its state) ends the run, its description quoted, escaped and bounded.
    const refused = await runAuthorizing(args, freshHome(), async (link) =>
      (await callback(link, { state: new URL(link).searchParams.get("state") ?? "", error: "access_denied", error_description: hostile })).text(),
    );
    expect(refused.code).toBe(1);
    expect(refused.browserSaw).toContain("Stepwise could not finish the authorization: the server refused");
    const lines = refused.stderr.trim().split("\n");
    expect(lines.at(-1)).toMatch(/^stepwise: MCP server secure: .*the server refused: "access_denied" \("denied\\r\\u001b\[2K\\u001b\]0;pwned\\u0007x+"… \(\d+ more characters left out\)\)/);
    expect(refused.stderr.length).toBeLessThan(3_000);
    expect(refused.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
  });
});
