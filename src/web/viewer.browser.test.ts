import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import { chromium, type BrowserContext, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from "vitest";
import { runCommand } from "../cli/run-command.js";
import { modelsFor } from "../cli/model-option.js";
import { mcpTools } from "../integrations/mcp-tools.js";
import { startElicitingMcpServer } from "../integrations/test-support/eliciting-mcp-server.js";
import { scriptedModel } from "../models/scripted.js";
import { openRuns, type Runs } from "../runs/runs.js";
import { startViewer, type Viewer } from "./viewer-server.js";

// The page in a real browser: Debian's Chromium, headless, offline, with a fresh profile. The viewer serves
// the page module built to dist/ (src/web/page): run `npm run build` first, as `npm test` does.
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];
/** Set to refresh the README's screenshot: UPDATE_VIEWER_SCREENSHOT=1 npx vitest run src/web/viewer.browser.test.ts */
const SCREENSHOT = process.env["UPDATE_VIEWER_SCREENSHOT"] ? resolve("docs/viewer.png") : undefined;

const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });

let profile: string;
let browser: BrowserContext;
let home: string;
let workspace: string;
let database: string;
let viewer: Viewer;
let runs: Runs;
let page: Page;

beforeAll(async () => {
  profile = mkdtempSync(join(tmpdir(), "stepwise-chromium-"));
  browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  rmSync(profile, { recursive: true, force: true });
});

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "stepwise-viewer-page-"));
  workspace = join(home, "workspace");
  mkdirSync(workspace);
  writeFileSync(join(workspace, "notes.md"), "Kickoff notes\nship on Friday\n");
  writeFileSync(join(workspace, "todo.txt"), "buy milk\n");
  database = join(home, "stepwise.db");
  runs = openRuns({ store: database, models: modelsFor });
  viewer = await startViewer({ runs });
  page = await browser.newPage();
  await page.setViewportSize({ width: 1100, height: 640 });
});

afterEach(async () => {
  await page.close();
  await viewer.close();
  await runs.close();
  rmSync(home, { recursive: true, force: true });
});

function startRun(strategy: string, model: string, approval = "none", task = "Survey the workspace and write report.md"): Promise<number> {
  return runCommand(task, { strategy, model, workspace, database, approval }, { stdout: quiet(), stderr: quiet() });
}

/** A drawn box's geometry, in the SVG's own units. */
async function box(locator: Locator): Promise<{ x: number; y: number; width: number }> {
  const [x, y, width] = await Promise.all(["x", "y", "width"].map(async (name) => Number(await locator.getAttribute(name))));
  return { x: x!, y: y!, width: width! };
}

async function waitForRunId(): Promise<string> {
  await expect.poll(async () => (await runs.list(1)).length, { timeout: 10_000 }).toBe(1);
  return (await runs.list(1))[0]!.id;
}

describe("the plan viewer in Chromium", () => {
  it("shows a running plan with its dependency graph and updates it as subtasks finish", async () => {
    const running = startRun("tasks", "scripted:demo@300ms");
    const runId = await waitForRunId();
    await page.goto(`${viewer.url}#run=${runId}`);

    const first = page.locator('#checklist li[data-item="1"]');
    await first.filter({ hasText: "Survey the workspace" }).waitFor();
    await page.locator('#run-header [data-run-status="running"]').waitFor();
    await page.locator('#checklist li[data-item="1"][data-status="in_progress"]').waitFor();
    // The subtask finishes while the page watches: the event stream redraws it as done.
    await page.locator('#checklist li[data-item="1"][data-status="done"]').waitFor();
    await page.locator('svg.graph g[data-node="3"]').waitFor();
    expect(await page.locator("svg.graph path[marker-end]").count()).toBe(2);
    await page.locator('#checklist li[data-item="2"][data-status="in_progress"]').waitFor();
    expect(await page.locator("#run").innerText()).not.toMatch(/\bnull\b|undefined/);
    const shot = join(home, "viewer.png");
    await page.screenshot({ path: shot });
    if (SCREENSHOT) copyFileSync(shot, SCREENSHOT);
    await page.locator('#tool-calls details[data-name="list_dir"]').first().waitFor();

    expect(await running).toBe(0);
    await page.locator('#run-header [data-run-status="finished"]').waitFor();
    await page.locator("#answer", { hasText: "wrote report.md" }).waitFor();
    expect(await page.locator('#checklist li[data-status="done"]').count()).toBe(3);
  });

  it("approves a paused run's plan with the Approve button, and the run resumes and finishes", async () => {
    expect(await startRun("notebook", "scripted:demo", "plan")).toBe(3);
    const runId = await waitForRunId();
    await page.goto(viewer.url);

    await page.locator(`nav button[data-run="${runId}"] [data-run-status="awaiting-approval"]`).waitFor();
    const pending = page.locator("#pending");
    await pending.filter({ hasText: "create_plan" }).waitFor();
    await pending.getByRole("button", { name: "Approve" }).click();

    await page.locator('#run-header [data-run-status="finished"]').waitFor();
    await page.locator("#answer", { hasText: "wrote report.md" }).waitFor();
    await page.locator("#past-plans", { hasText: "Workspace report" }).waitFor();
    expect(await page.locator("#pending").count()).toBe(0);
    expect(existsSync(join(workspace, "report.md"))).toBe(true);
    expect((await runs.get(runId))?.status).toBe("finished");
  });

  it("approves a paused plan-and-execute plan with the Approve button, and that workflow run continues and finishes", async () => {
    expect(await startRun("plan-execute", "scripted:demo", "plan")).toBe(3);
    const runId = await waitForRunId();
    expect((await runs.get(runId))?.status).toBe("awaiting-approval");
    await page.goto(`${viewer.url}#run=${runId}`);

    const pending = page.locator("#pending");
    await pending.filter({ hasText: "plan" }).waitFor();
    await pending.getByRole("button", { name: "Approve" }).click();

    await page.locator('#run-header [data-run-status="finished"]').waitFor();
    expect(await page.locator("#pending").count()).toBe(0);
    expect(existsSync(join(workspace, "report.md"))).toBe(true);
    expect((await runs.get(runId))?.status).toBe("finished");
  });

  it("works behind a token: opened once with ?token=, the page reads runs, follows events and approves through its cookie", async () => {
    await viewer.close();
    viewer = await startViewer({ runs, host: "0.0.0.0", token: "s3cret" });
    const base = viewer.url.replace("0.0.0.0", "127.0.0.1");
    expect(await startRun("notebook", "scripted:demo", "plan")).toBe(3);
    const runId = await waitForRunId();
    await page.goto(`${base}?token=s3cret#run=${runId}`);

    await page.locator("#pending").getByRole("button", { name: "Approve" }).click();
    await page.locator('#run-header [data-run-status="finished"]').waitFor();
    await page.locator("#answer", { hasText: "wrote report.md" }).waitFor();
    expect(page.url()).toBe(`${base}#run=${runId}`);
  });

  it("shows an MCP server's question as the server put it, and Decline declines it: the run goes on", async () => {
    const server = await startElicitingMcpServer();
    const mcp = await mcpTools({ url: server.url }, { prefix: "rooms_" });
    try {
      await viewer.close();
      await runs.close();
      const model = scriptedModel([{ toolCalls: [{ name: "rooms_book_room", arguments: {}, id: "c1" }] }, (req) => `told: ${String(req.messages.at(-1)?.content)}`]);
      runs = openRuns({ store: database, models: () => () => model, tools: () => mcp.tools() });
      viewer = await startViewer({ runs });
      const run = await runs.start({ task: "book a room", strategy: "todos", model: "scripted", settings: { workspace } });
      expect(await run.done).toMatchObject({ status: "awaiting-approval" });
      await page.goto(`${viewer.url}#run=${run.id}`);

      const pending = page.locator("#pending");
      await pending.filter({ hasText: 'MCP server "eliciting-server" asks: Which room?' }).waitFor();
      expect(await pending.getByText("The agent asks").count()).toBe(0);
      await pending.getByRole("button", { name: "Decline" }).click();
      await page.locator('#run-header [data-run-status="finished"]').waitFor();
      expect(server.answers.at(-1)).toEqual({ action: "decline" });
    } finally {
      await mcp.close();
      await server.stop();
    }
  });

  it("draws a finished compiler run's parallel tasks as overlapping bars in the timeline, and opens a written file as a diff", async () => {
    expect(await startRun("compiler", "scripted:demo")).toBe(0);
    const runId = await waitForRunId();
    await page.goto(`${viewer.url}#run=${runId}`);

    const reads = page.locator('svg.timeline rect[data-kind="tool"][data-name="read_file"]');
    await reads.first().waitFor();
    expect(await reads.count()).toBe(2);
    const [a, b] = [await box(reads.nth(0)), await box(reads.nth(1))];
    // Both reads ran at once: their spans overlap on the time axis, so they sit in lanes of their own.
    expect(a.x < b.x + b.width && b.x < a.x + a.width).toBe(true);
    expect(a.y).not.toBe(b.y);
    expect(await page.locator('svg.timeline rect[data-kind="model"]').count()).toBeGreaterThan(0);
    // The workflow's own tool calls reach the page.
    expect(await page.locator('#tool-calls details[data-name="read_file"]').count()).toBe(2);
    // Graph and checklist labels read as words, not JSON.
    await page.locator("#checklist .label", { hasText: "write_file: report.md" }).waitFor();

    await page.locator('svg.timeline rect[data-name="write_file"]').click();
    const diff = page.locator("#tool-call .diff");
    await diff.filter({ hasText: "report.md: new file" }).waitFor();
    expect(await diff.locator(".add", { hasText: "# Workspace report" }).count()).toBe(1);
    expect(await diff.locator(".del").count()).toBe(0);
  });

  it("opens a notebook run's model call to the exact messages it received, its plan hint marked as the ephemeral tail", async () => {
    expect(await startRun("notebook", "scripted:demo")).toBe(0);
    const runId = await waitForRunId();
    await page.goto(`${viewer.url}#run=${runId}`);

    await page.locator('#model-calls tr[data-n="2"] button').click();
    const call = page.locator('#model-call[data-n="2"]');
    await call.waitFor();
    const tail = call.locator("li.message[data-tail]");
    expect(await tail.count()).toBe(1);
    expect(await tail.innerText()).toContain("<system-hint>");
    expect(await tail.innerText()).toContain("Ephemeral tail");
    const stable = call.locator("li.message:not([data-tail])");
    expect(await stable.first().getAttribute("data-role")).toBe("system");
    expect(await stable.filter({ hasText: "<system-hint>" }).count()).toBe(0);
    // The request size chart has a bar per call, and a bar opens its call too.
    const bars = page.locator("#context-chart rect.size-bar");
    expect(await bars.count()).toBe(await page.locator("#model-calls tbody tr").count());
    await bars.nth(2).click();
    await page.locator('#model-call[data-n="3"]').waitFor();
  });

  it("filters the run list by strategy and by status", async () => {
    expect(await startRun("compiler", "scripted:demo", "none", "Compile a report")).toBe(0);
    expect(await startRun("notebook", "scripted:demo", "plan", "Plan a report")).toBe(3);
    await page.goto(viewer.url);
    const listed = page.locator("nav#runs button[data-run]");
    await expect.poll(() => listed.count()).toBe(2);

    await page.locator('#run-filter select[name="strategy"]').selectOption("compiler");
    await expect.poll(() => listed.allInnerTexts()).toEqual([expect.stringContaining("Compile a report")]);
    await page.locator('#run-filter select[name="strategy"]').selectOption("");
    await page.locator('#run-filter select[name="status"]').selectOption("awaiting-approval");
    await expect.poll(() => listed.allInnerTexts()).toEqual([expect.stringContaining("Plan a report")]);
    await page.locator('#run-filter select[name="status"]').selectOption("failed");
    await page.locator("nav#runs", { hasText: "No run matches." }).waitFor();
  });
});
