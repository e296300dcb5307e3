import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from "vitest";
import { runCommand } from "../cli/run-command.js";
import { approveEverything } from "../cli/given-decisions.js";
import { modelsFor } from "../cli/model-option.js";
import { mcpTools } from "../integrations/mcp-tools.js";
import { startElicitingMcpServer } from "../integrations/test-support/eliciting-mcp-server.js";
import { silentModel } from "../models/test-support/silent-model.js";
import { scriptedModel } from "../models/scripted.js";
import { openRuns, type Runs } from "../runs/runs.js";
import { launchChromium } from "./test-support/chromium.js";
import { startViewer, type Viewer } from "./viewer-server.js";
import { renderHtmlReport } from "../eval/html-report.js";
import type { StrategySummary } from "../eval/scoring.js";
import type { StrategyName } from "../runs/strategies.js";

/** Set to refresh the README's screenshot: UPDATE_VIEWER_SCREENSHOT=1 npx vitest run src/web/viewer.browser.test.ts */
const SCREENSHOT = process.env["UPDATE_VIEWER_SCREENSHOT"] ? resolve("docs/viewer.png") : undefined;

const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });

let chromium: Awaited<ReturnType<typeof launchChromium>>;
let browser: BrowserContext;
let home: string;
let workspace: string;
let database: string;
let viewer: Viewer;
let runs: Runs;
let page: Page;

beforeAll(async () => {
  chromium = await launchChromium();
  browser = chromium.browser;
});

afterAll(async () => {
  await chromium?.close();
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
    await page.locator('#run-header [data-run-status="final"]').waitFor();
    await page.locator("#answer", { hasText: "wrote report.md" }).waitFor();
    expect(await page.locator('#checklist li[data-status="done"]').count()).toBe(3);
  });

  it("approves a paused run's plan with the Approve button, and the run resumes and finishes", async () => {
    expect(await startRun("notebook", "scripted:demo", "plan")).toBe(3);
    const runId = await waitForRunId();
    await page.goto(viewer.url);

    await page.locator(`nav button[data-run="${runId}"] [data-run-status="awaiting-user"]`).waitFor();
    const pending = page.locator("#pending");
    await pending.filter({ hasText: "create_plan" }).waitFor();
    await pending.getByRole("button", { name: "Approve" }).click();
    await pending.getByRole("button", { name: "Send decision" }).click();

    await page.locator('#run-header [data-run-status="final"]').waitFor();
    await page.locator("#answer", { hasText: "wrote report.md" }).waitFor();
    await page.locator("#past-plans", { hasText: "Workspace report" }).waitFor();
    expect(await page.locator("#pending").count()).toBe(0);
    expect(existsSync(join(workspace, "report.md"))).toBe(true);
    expect((await runs.get(runId))?.status).toBe("final");
  });

  it("approves a paused plan-and-execute plan with the Approve button, and that workflow run continues and finishes", async () => {
    expect(await startRun("plan-execute", "scripted:demo", "plan")).toBe(3);
    const runId = await waitForRunId();
    expect((await runs.get(runId))?.status).toBe("awaiting-user");
    await page.goto(`${viewer.url}#run=${runId}`);

    const pending = page.locator("#pending");
    await pending.filter({ hasText: "plan" }).waitFor();
    await pending.getByRole("button", { name: "Approve" }).click();
    await pending.getByRole("button", { name: "Send decision" }).click();

    await page.locator('#run-header [data-run-status="final"]').waitFor();
    expect(await page.locator("#pending").count()).toBe(0);
    expect(existsSync(join(workspace, "report.md"))).toBe(true);
    expect((await runs.get(runId))?.status).toBe("final");
  });

  it("works behind a token: opened once with ?token=, the page reads runs, follows events and approves with the token it keeps in the tab", async () => {
    await viewer.close();
    viewer = await startViewer({ runs, host: "0.0.0.0", token: "s3cret" });
    const base = viewer.url.replace("0.0.0.0", "127.0.0.1");
    expect(await startRun("notebook", "scripted:demo", "plan")).toBe(3);
    const runId = await waitForRunId();
    await page.goto(`${base}?token=s3cret#run=${runId}`);

    await page.locator("#pending").getByRole("button", { name: "Approve" }).click();
    await page.locator("#pending").getByRole("button", { name: "Send decision" }).click();
    await page.locator('#run-header [data-run-status="final"]').waitFor();
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
      expect(await run.done).toMatchObject({ status: "awaiting-user" });
      await page.goto(`${viewer.url}#run=${run.id}`);

      const pending = page.locator("#pending");
      await pending.filter({ hasText: 'MCP server "eliciting-server" asks: Which room?' }).waitFor();
      expect(await pending.getByText("The agent asks").count()).toBe(0);
      await pending.getByRole("button", { name: "Decline" }).click();
      await pending.getByRole("button", { name: "Send decision" }).click();
      await page.locator('#run-header [data-run-status="final"]').waitFor();
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

  it("draws a model call that Ctrl-C cut off as interrupted, in a colour its legend names, never as running", async () => {
    const silent = silentModel();
    const handle = await runs.start({ task: "Wait for an answer", strategy: "notebook", model: silent.model, settings: { workspace } });
    await silent.asked;
    handle.stop();
    expect((await handle.done).status).toBe("aborted");
    await page.goto(`${viewer.url}#run=${handle.id}`);

    const bar = page.locator('svg.timeline rect[data-kind="model"]');
    await bar.waitFor();
    expect(await bar.getAttribute("class")).toBe("bar model interrupted");
    expect(await page.locator("svg.timeline rect.running").count()).toBe(0);
    const legend = page.locator("#timeline .legend");
    expect(await legend.locator('[data-key="interrupted"]').innerText()).toMatch(/^\s*interrupted \(no result/);
    expect((await legend.locator('[data-key="running"]').innerText()).trim()).toBe("still running");
    // The bar's colour is the legend key's.
    const [barFill, keyColour] = await Promise.all([
      bar.evaluate((node) => getComputedStyle(node).fill),
      legend.locator(".key.interrupted").evaluate((node) => getComputedStyle(node).backgroundColor),
    ]);
    expect(barFill).toBe(keyColour);
    expect(await page.locator('#model-calls tr[data-n="1"]').innerText()).toMatch(/interrupted after \d/);
    expect(await page.locator("#run").innerText()).not.toContain("running…");
  });

  it("tells a compiler run's planner and joiner calls apart across its plan's approval, and keeps the workflow one run", async () => {
    expect(await startRun("compiler", "scripted:demo", "plan")).toBe(3);
    const runId = await waitForRunId();
    // Each round's plan waits for approval: the run goes on in a new session each time.
    const approver = approveEverything(() => undefined);
    expect(await runCommand(undefined, { database, resume: true }, { stdout: quiet(), stderr: quiet(), approver })).toBe(0);
    await page.goto(`${viewer.url}#run=${runId}`);
    await page.locator('#run-header [data-run-status="final"]').waitFor();
    await page.locator("#model-calls tbody tr").first().waitFor();
    const labels = await page.locator("#model-calls tbody tr td:nth-child(2)").allInnerTexts();
    expect(labels.length).toBeGreaterThan(2);
    expect(labels[0]).toBe("llm-compiler · call 1 (planning, round 1)");
    expect(labels[1]).toBe("llm-compiler · call 2");
    expect(labels.map((label) => /call (\d+)/.exec(label)?.[1])).toEqual(labels.map((_, i) => String(i + 1)));
    // One workflow, however many sessions it took: no list of sub-agents, one row in the timeline.
    expect(await page.locator("#run-tree").count()).toBe(0);
    expect(await page.locator("svg.timeline g[data-run]").count()).toBe(1);
  });

  it("keeps a run resumed twice one run in the tree, its model calls numbered on across the resumes", async () => {
    const settings = { strategy: "notebook", model: "scripted:demo", workspace, database, approval: "none" };
    const io = { stdout: quiet(), stderr: quiet() };
    expect(await runCommand("Survey the workspace and write report.md", { ...settings, maxSteps: 2 }, io)).toBe(4);
    expect(await runCommand(undefined, { database, resume: true, maxSteps: 2 }, io)).toBe(4);
    expect(await runCommand(undefined, { database, resume: true, maxSteps: 50 }, io)).toBe(0);
    const runId = await waitForRunId();
    await page.goto(`${viewer.url}#run=${runId}`);
    await page.locator('#run-header [data-run-status="final"]').waitFor();
    const labels = await page.locator("#model-calls tbody tr td:nth-child(2)").allInnerTexts();
    expect(labels.length).toBeGreaterThan(4);
    expect(labels).toEqual(labels.map((_, i) => `notebook · call ${i + 1}`));
    expect(await page.locator("#run-tree").count()).toBe(0);
    expect(await page.locator("svg.timeline g[data-run]").count()).toBe(1);
  });

  it("shows a board's waiting tasks as pending, in the words of the task tools", async () => {
    const stopped = await runCommand("Survey the workspace and write report.md", { strategy: "tasks", model: "scripted:demo", workspace, database, approval: "none", maxSteps: 3 }, { stdout: quiet(), stderr: quiet() });
    expect(stopped).toBe(4);
    await page.goto(`${viewer.url}#run=${await waitForRunId()}`);
    const pending = page.locator('#checklist li[data-status="todo"]');
    await pending.first().waitFor();
    expect(await pending.locator(".status-text").allInnerTexts()).toEqual((await pending.allInnerTexts()).map(() => "(pending)"));
    expect(await page.locator("#checklist").innerText()).not.toContain("(todo)");
  });

  it("says it is loading until the run list comes, and only then that there are no runs", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/runs$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(viewer.url);
    await page.locator("#run", { hasText: "Loading…" }).waitFor();
    expect(await page.locator("#run").innerText()).not.toContain("Start");
    release();
    await page.locator("#run", { hasText: 'No runs yet. Start one with stepwise run "<task>"; it shows up here.' }).waitFor();
  });

  it("lists each run with the start of its id, its time and its estimated cost", async () => {
    expect(await startRun("notebook", "scripted:demo", "none", "Plan a report")).toBe(0);
    const priced = scriptedModel([{ toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, "Two files."], { id: "openai:gpt-4o-mini" });
    const handle = await runs.start({ task: "Count the files", strategy: "todos", model: priced, settings: { workspace } });
    await handle.done;
    await page.goto(viewer.url);
    const listed = page.locator("nav#runs button[data-run]");
    await expect.poll(() => listed.count()).toBe(2);
    const [pricedRow, scriptedRow] = await listed.allInnerTexts();
    const summaries = (await (await fetch(new URL("/api/runs", viewer.url))).json()) as { id: string; durationMs: number; costUsd?: number }[];
    const [pricedRun, scriptedRun] = summaries;
    expect(pricedRun!.costUsd).toBeGreaterThan(0);
    expect(scriptedRun!.costUsd).toBeUndefined();
    expect(pricedRow).toContain(`${pricedRun!.id.slice(0, 8)} · ${(pricedRun!.durationMs / 1000).toFixed(1)} s · ≈ $${pricedRun!.costUsd!.toFixed(4)}`);
    expect(scriptedRow).toContain(`${scriptedRun!.id.slice(0, 8)} · ${(scriptedRun!.durationMs / 1000).toFixed(1)} s · cost n/a`);
    // The start of an id is enough in the address, as on the command line.
    await page.goto(`${viewer.url}#run=${scriptedRun!.id.slice(0, 8)}`);
    await page.reload();
    await page.locator("#run-header h2", { hasText: "Plan a report" }).waitFor();
  });

  it("draws the eval's strategies with the same figures side by side, each point named", async () => {
    // Three strategies with the very same figures: their points would fall on one spot.
    const row = (strategy: StrategyName): StrategySummary => ({
      strategy,
      trials: 3,
      passed: 2,
      successRate: 2 / 3,
      interval: [0.2, 0.94],
      inputTokens: 1200,
      cachedInputTokens: 0,
      outputTokens: 80,
      steps: 4,
      wallMs: 1000,
      costUsd: 0.01,
      outcomes: { passed: 2, "wrong-answer": 1, "gave-up": 0, "max-steps": 0, error: 0 },
    });
    const strategies: StrategyName[] = ["react", "notebook", "todos"];
    const html = renderHtmlReport({
      model: "openai:gpt-4o-mini",
      scripted: false,
      strategies,
      tasks: ["t"],
      trials: 3,
      records: [],
      machineFailures: [],
      summary: strategies.map(row),
      resumed: 0,
      abortedRuns: 0,
      notRun: 0,
      budget: undefined,
      files: { results: "r", store: "s", report: "p" },
    });
    await page.setContent(html);
    const points = page.locator("svg circle[data-series]");
    expect(await points.count()).toBe(3);
    for (const name of ["react", "notebook", "todos"]) {
      const point = page.locator(`svg circle[data-series="${name}"]`);
      const box = (await point.boundingBox())!;
      // Nothing covers the point: the element at its centre is the point itself.
      const top = await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.getAttribute("data-series"), [box.x + box.width / 2, box.y + box.height / 2]);
      expect(top).toBe(name);
      expect(await page.locator(`svg text[data-label="${name}"]`).textContent()).toBe(name);
    }
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
    await page.locator('#run-filter select[name="status"]').selectOption("awaiting-user");
    await expect.poll(() => listed.allInnerTexts()).toEqual([expect.stringContaining("Plan a report")]);
    await page.locator('#run-filter select[name="status"]').selectOption("failed");
    await page.locator("nav#runs", { hasText: "No run matches." }).waitFor();
  });
  it("shows which worker drives each run and how long it has held it, and no driver once the run stopped", async () => {
    const silent = silentModel();
    const worker = openRuns({ store: database, holder: "worker-7" });
    try {
      const driven = await worker.start({ task: "Wait on the model", strategy: "react", model: silent.model, settings: { workspace } });
      await silent.asked;
      await page.goto(`${viewer.url}#run=${driven.id}`);
      const item = page.locator(`nav#runs button[data-run="${driven.id}"] .driver`);
      await item.waitFor();
      expect(await item.textContent()).toMatch(/^driven by worker-7 for \d+\.\d s$/);
      expect(await page.locator("#run-driver").textContent()).toMatch(/^driven by worker-7 for \d+\.\d s$/);
      // Stopped, the run has nobody driving it.
      driven.stop();
      await driven.done;
      await page.locator(`nav#runs button[data-run="${driven.id}"] [data-run-status="aborted"]`).waitFor();
      await expect.poll(() => page.locator("nav#runs button[data-run] .driver").count()).toBe(0);
      expect(await page.locator("#run-driver").count()).toBe(0);
    } finally {
      await worker.close({ stop: true });
    }
  });
});
