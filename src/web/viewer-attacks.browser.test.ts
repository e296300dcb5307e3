import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page, Request } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { modelsFor } from "../cli/model-option.js";
import type { ChatModel, ModelStreamPart } from "../core/model.js";
import { scriptedModel } from "../models/scripted.js";
import { openRuns, type Runs } from "../runs/runs.js";
import { launchChromium } from "./test-support/chromium.js";
import { startViewer, type Viewer } from "./viewer-server.js";

// Attacks on the viewer from another local port, in a real Chromium: framing it under a decoy (one click
// approved `write_file danger.sh "rm -rf ~"`), and reading its token from the cookie every port received.

let chromium: Awaited<ReturnType<typeof launchChromium>>;
let browser: BrowserContext;
let home: string;
let workspace: string;
let runs: Runs;
let viewer: Viewer;
let attacker: Server | undefined;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
});

afterAll(async () => {
  await chromium?.close();
});

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "stepwise-viewer-attacks-"));
  workspace = join(home, "workspace");
  mkdirSync(workspace);
  runs = openRuns({ store: join(home, "stepwise.db"), models: modelsFor });
});

afterEach(async () => {
  await browser.unrouteAll({ behavior: "ignoreErrors" });
  await browser.clearCookies();
  for (const page of browser.pages()) await page.close();
  await viewer?.close();
  await runs.close();
  // The browser keeps its connections to the other server open: end them, or close waits for them.
  attacker?.closeAllConnections();
  await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
  attacker = undefined;
  rmSync(home, { recursive: true, force: true });
});

/** A run paused on the write the attack is after. */
async function pausedOnDangerousWrite(): Promise<string> {
  const model = scriptedModel([{ toolCalls: [{ name: "write_file", arguments: { path: "danger.sh", content: "rm -rf ~\n" } }] }, "Wrote it."]);
  const run = await runs.start({ task: "Tidy up", strategy: "todos", model, settings: { workspace, approval: "writes" } });
  expect(await run.done).toMatchObject({ status: "awaiting-user", pending: [{ name: "write_file" }] });
  return run.id;
}

/** Another server on this machine, on a port of its own: it records what every request brought, and serves `html`. */
async function otherServer(html: string): Promise<{ url: string; received: { url: string; headers: IncomingHttpHeaders }[] }> {
  const received: { url: string; headers: IncomingHttpHeaders }[] = [];
  attacker = createServer((req, res) => {
    received.push({ url: req.url ?? "", headers: req.headers });
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(html);
  });
  await new Promise<void>((resolve) => attacker!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`, received };
}

const VIEWPORT = { width: 1100, height: 640 };

/** Where Approve and then the confirmation sit on the viewer's own page, as an attacker who knows the page would measure them. */
async function measureButtons(): Promise<{ x: number; y: number }[]> {
  const page = await browser.newPage();
  await page.setViewportSize(VIEWPORT);
  // Measuring must decide nothing: any decision this page would send is dropped.
  await page.route("**/decisions", (route) => route.abort());
  await page.goto(viewer.url);
  const centre = async (name: string) => {
    const box = await page.locator("#pending").getByRole("button", { name }).boundingBox({ timeout: 5_000 }).catch(() => null);
    return box ? [{ x: box.x + box.width / 2, y: box.y + box.height / 2 }] : [];
  };
  const approve = await centre("Approve");
  expect(approve).toHaveLength(1);
  await page.locator("#pending").getByRole("button", { name: "Approve" }).click();
  const confirm = await centre("Send decision");
  await page.close();
  return [...approve, ...confirm];
}

/** The attack page: the viewer in an almost invisible frame over a decoy; it notes when the frame has loaded. */
const framingPage = (target: string) => `<!doctype html>
<html><body style="margin:0">
<button style="position:absolute;left:500px;top:300px">Claim your prize</button>
<iframe id="viewer" src="${target}" style="position:absolute;left:0;top:0;width:${VIEWPORT.width}px;height:${VIEWPORT.height}px;border:0;opacity:0.01"></iframe>
<script>document.getElementById("viewer").addEventListener("load", () => (document.title = "framed"));</script>
</body></html>`;

/** Frames the viewer from another port and clicks, as a user fooled by the decoy would, where Approve and its confirmation are. */
async function clickjack(): Promise<{ page: Page; decisions: Request[]; fromFrame: Request[] }> {
  const targets = await measureButtons();
  const { url } = await otherServer(framingPage(viewer.url));
  const page = await browser.newPage();
  await page.setViewportSize(VIEWPORT);
  const decisions: Request[] = [];
  const fromFrame: Request[] = [];
  page.on("request", (request) => {
    if (request.url().startsWith(viewer.url) && request.frame() !== page.mainFrame()) fromFrame.push(request);
    if (request.method() === "POST" && request.url().endsWith("/decisions")) decisions.push(request);
  });
  await page.goto(url);
  await page.waitForFunction(() => document.title === "framed");
  for (const { x, y } of targets) {
    // The attacker waits out any delay before the confirmation takes clicks: the user is slow to click anyway.
    await page.waitForTimeout(800);
    await page.mouse.click(x, y);
  }
  // A request sent after the clicks: any decision they had sent was sent before it.
  await page.evaluate(() => fetch("/after-clicks"));
  return { page, decisions, fromFrame };
}

async function stillPaused(runId: string): Promise<void> {
  expect(await runs.get(runId)).toMatchObject({ status: "awaiting-user", decided: false });
  expect(existsSync(join(workspace, "danger.sh"))).toBe(false);
}

describe("a page on another local port framing the viewer", () => {
  it("cannot: the browser refuses to show the viewer in the frame, and clicks where Approve would be approve nothing", async () => {
    const runId = await pausedOnDangerousWrite();
    viewer = await startViewer({ runs });
    const { page, decisions, fromFrame } = await clickjack();
    expect(decisions).toEqual([]);
    await stillPaused(runId);

    // Only the frame's document was asked for: refused by its headers, it loaded nothing of the page.
    expect(fromFrame.map((request) => new URL(request.url()).pathname)).toEqual(["/"]);
    const response = await fromFrame[0]!.response();
    expect(response?.headers()["x-frame-options"]).toBe("DENY");
    expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame?.url()).not.toBe(viewer.url);
  });

  it("cannot even in a browser that ignored those headers: the framed page shows no run and offers no decision", async () => {
    const runId = await pausedOnDangerousWrite();
    viewer = await startViewer({ runs });
    // As a browser that does not know X-Frame-Options and frame-ancestors would see the viewer.
    await browser.route(`${viewer.url}**`, async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers["x-frame-options"];
      delete headers["content-security-policy"];
      await route.fulfill({ response, headers });
    });
    const { page, decisions, fromFrame } = await clickjack();
    expect(decisions).toEqual([]);
    await stillPaused(runId);

    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    await frame.locator(".framed", { hasText: "does not work inside another page" }).waitFor();
    expect(await frame.locator("#pending, #runs, #run").count()).toBe(0);
    // The framed page asked for no run at all.
    expect(fromFrame.map((request) => new URL(request.url()).pathname).filter((path) => path.startsWith("/runs"))).toEqual([]);
  });
});

describe("deciding on the viewer's own page", () => {
  it("sends nothing on the first click: the decision waits for a confirmation below the calls, which takes no click in its first moment", async () => {
    const runId = await pausedOnDangerousWrite();
    viewer = await startViewer({ runs });
    const page = await browser.newPage();
    const decisions: Request[] = [];
    page.on("request", (request) => request.method() === "POST" && decisions.push(request));
    await page.goto(`${viewer.url}#run=${runId}`);
    const pending = page.locator("#pending");
    await pending.filter({ hasText: "danger.sh" }).waitFor();

    // Approve, then at once (a double-click, a click aimed blind) the confirmation: it is not armed yet.
    const clicked = await page.evaluate(() => {
      const button = (name: string) => Array.from(document.querySelectorAll<HTMLButtonElement>("#pending button")).find((b) => b.textContent === name);
      button("Approve")?.click();
      const confirm = button("Send decision");
      confirm?.click();
      return { confirmShown: confirm !== undefined, confirmDisabled: confirm?.disabled };
    });
    expect(clicked).toEqual({ confirmShown: true, confirmDisabled: true });
    await pending.locator("#confirm-decisions", { hasText: "Confirm: approve write_file" }).waitFor();
    expect(decisions).toEqual([]);
    await stillPaused(runId);

    // Change goes back to the choice; deciding again and confirming sends it.
    await pending.getByRole("button", { name: "Change" }).click();
    expect(await pending.locator("#confirm-decisions").count()).toBe(0);
    await pending.getByRole("button", { name: "Approve" }).click();
    await pending.getByRole("button", { name: "Send decision" }).click();
    await page.locator('#run-header [data-run-status="final"]').waitFor();
    expect(decisions).toHaveLength(1);
    expect(existsSync(join(workspace, "danger.sh"))).toBe(true);
  });
});

describe("the viewer's token", () => {
  const TOKEN = "viewer-token-0123456789";

  it("never reaches another server on another port of the same host, though the page keeps working across a reload", async () => {
    // (The token's page deciding a paused run: viewer.browser.test.ts.)
    const runId = await pausedOnDangerousWrite();
    viewer = await startViewer({ runs, token: TOKEN });
    const other = await otherServer(`<!doctype html><img src="/pixel.png"><script>fetch("/api", { credentials: "include" })</script>`);
    // What an earlier version left in the browser: a cookie for 127.0.0.1, which goes to every port.
    await browser.addCookies([{ name: "stepwise_ui_token", value: TOKEN, domain: "127.0.0.1", path: "/", httpOnly: true, sameSite: "Strict" }]);

    const page = await browser.newPage();
    await page.goto(`${viewer.url}?token=${TOKEN}#run=${runId}`);
    await page.locator("#pending").filter({ hasText: "danger.sh" }).waitFor();
    expect(page.url()).toBe(`${viewer.url}#run=${runId}`);
    await page.reload();
    // Reloaded without the token in the address, the page still reads the run and follows its events.
    await page.locator("#pending").filter({ hasText: "danger.sh" }).waitFor();
    await page.locator("#connection", { hasText: "live" }).waitFor();

    await page.goto(other.url);
    await page.waitForFunction(() => (document.querySelector("img") as HTMLImageElement | null)?.complete === true);
    await page.evaluate(() => fetch("/after", { credentials: "include" }));
    expect(other.received.map((request) => request.url)).toEqual(expect.arrayContaining(["/", "/pixel.png", "/api", "/after"]));
    for (const request of other.received) expect(JSON.stringify(request)).not.toContain(TOKEN);
    expect(JSON.stringify(await browser.cookies())).not.toContain(TOKEN);

    // A tab that was never given the token is told how to get in.
    const stranger = await browser.newPage();
    await stranger.goto(viewer.url);
    await stranger.locator("#connection", { hasText: "this viewer needs its token" }).waitFor();
  });
});

describe("the viewer's page under its content security policy", () => {
  it("draws a run with sub-agents and a call cut off mid-stream without a single violation", async () => {
    // A model that streams a little text, then fails: the call never answered.
    const cutOff: ChatModel = {
      id: "test:cut-off",
      generate: () => Promise.reject(new Error("unused")),
      async *stream(): AsyncIterable<ModelStreamPart> {
        yield { type: "text-delta", text: "Half of an answer, " };
        yield { type: "text-delta", text: "then the connection broke." };
        throw new Error("the provider went away");
      },
    };
    const run = await runs.start({ task: "Answer", strategy: "todos", model: cutOff, settings: { workspace } });
    await expect(run.done).rejects.toThrow("the provider went away");
    writeFileSync(join(workspace, "notes.md"), "notes\n");
    const planned = await runs.start({ task: "Survey the workspace and write report.md", strategy: "plan-tool", model: "scripted:demo", settings: { workspace } });
    expect((await planned.done).status).toBe("final");
    viewer = await startViewer({ runs });

    const page = await browser.newPage();
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { violations: string[] }).violations = seen;
      document.addEventListener("securitypolicyviolation", (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    await page.goto(`${viewer.url}#run=${planned.id}`);
    const nested = page.locator("#run-tree li").nth(1);
    await nested.waitFor();
    expect(await nested.evaluate((item) => getComputedStyle(item).paddingLeft)).not.toBe("0px");

    await page.locator(`nav button[data-run="${run.id}"]`).click();
    await page.locator('#model-calls tr[data-n="1"] button').click();
    await page.locator("#model-call pre.streamed", { hasText: "Half of an answer, then the connection broke." }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
  });
});
