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
    const script = join(home, "viewer.mjs");
    writeFileSync(script, await (await fetch(new URL("/assets/viewer.js", url))).text());
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
});
