import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { describe, expect, it } from "vitest";

const MAIN = join(process.cwd(), "dist/cli/main.js");

describe("stepwise ui (built CLI as a child process)", () => {
  it("prints the viewer's URL, serves the page and a script that parses, and stops cleanly on Ctrl-C", async () => {
    const home = mkdtempSync(join(tmpdir(), "stepwise-ui-"));
    const child = spawn(process.execPath, [MAIN, "ui", "--port", "0"], { env: { ...process.env, STEPWISE_HOME: home } });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
    await expect.poll(() => out, { timeout: 15_000 }).toMatch(/plan viewer: http:\/\/127\.0\.0\.1:\d+\//);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)![1]!;

    expect(await (await fetch(new URL("/runs", url))).json()).toEqual([]);
    expect(await (await fetch(url)).text()).toContain("Stepwise plan viewer");
    // The browser asks for a favicon on every page load: an icon, not a 404 in the console.
    const icon = await fetch(new URL("/favicon.ico", url));
    expect([icon.status, icon.headers.get("content-type")]).toEqual([200, "image/svg+xml"]);
    const script = join(home, "viewer.mjs");
    writeFileSync(script, await (await fetch(new URL("/assets/web/page/main.js", url))).text());
    expect(spawnSync(process.execPath, ["--check", script]).status).toBe(0);

    child.kill("SIGINT");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    expect(out).toContain("stopping the viewer");
  });

  it("refuses a bad port in one line with a non-zero exit", () => {
    const result = spawnSync(process.execPath, [MAIN, "ui", "--port", "http"], { encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split("\n")).toEqual(["stepwise: --port expects a port number from 0 to 65535"]);
  });

  it("refuses to serve beyond loopback without a token, in one line, exit 2 as for any bad setting", () => {
    const home = mkdtempSync(join(tmpdir(), "stepwise-ui-"));
    const result = spawnSync(process.execPath, [MAIN, "ui", "--host", "0.0.0.0", "--port", "0"], {
      encoding: "utf8",
      env: { PATH: process.env["PATH"] ?? "", STEPWISE_HOME: home },
    });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^stepwise: refusing to serve the viewer on 0\.0\.0\.0 without a token/);
    expect(result.stdout).toBe("");
  });

  it("serves beyond loopback with STEPWISE_UI_TOKEN, and only to requests that bring it", async () => {
    const home = mkdtempSync(join(tmpdir(), "stepwise-ui-"));
    const child = spawn(process.execPath, [MAIN, "ui", "--host", "0.0.0.0", "--port", "0"], {
      env: { PATH: process.env["PATH"] ?? "", STEPWISE_HOME: home, STEPWISE_UI_TOKEN: "s3cret" },
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
    await expect.poll(() => out, { timeout: 15_000 }).toMatch(/plan viewer: http:\/\/0\.0\.0\.0:\d+\/  \(open it once with \?token=/);
    const url = /http:\/\/0\.0\.0\.0:(\d+)\//.exec(out)![0].replace("0.0.0.0", "127.0.0.1");
    expect((await fetch(new URL("/runs", url))).status).toBe(401);
    expect((await fetch(new URL("/runs?token=s3cret", url))).status).toBe(200);
    child.kill("SIGINT");
    expect((await once(child, "exit"))[0]).toBe(0);
  });
});
