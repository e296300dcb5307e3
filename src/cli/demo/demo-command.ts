import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_MODEL } from "../model-option.js";
import { runCommand } from "../run-command.js";
import { STRATEGIES } from "../../runs/strategies.js";
import { createDemoWorkspace } from "./demo-workspace.js";
import { REPORT_PATH } from "./workspace-survey.js";

const DEMO_TASK = "Survey this workspace and write report.md with one line per file.";

/** `stepwise demo`: every strategy in turn does the same small job offline, each in a fresh workspace. */
export async function runDemo(stdout: NodeJS.WritableStream & { isTTY?: boolean }, stderr: NodeJS.WritableStream): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), "stepwise-demo-store-"));
  stdout.write(
    `Stepwise demo: scripted agents (${DEMO_MODEL}), offline: no model is called and nothing leaves this machine.\n` +
      "Each strategy does the same small job in a fresh temporary workspace, removed afterwards.\n",
  );
  try {
    for (const strategy of STRATEGIES) {
      const workspace = createDemoWorkspace();
      stdout.write(`\n=== ${strategy} ===\nworkspace: ${workspace}\n`);
      const code = await runCommand(
        DEMO_TASK,
        { strategy, model: DEMO_MODEL, workspace, database: join(home, "stepwise.db") },
        { stdout, stderr },
      );
      if (code !== 0) return code;
      const report = readFileSync(join(workspace, REPORT_PATH), "utf8");
      stdout.write(`--- ${REPORT_PATH} ---\n${report}`);
      rmSync(workspace, { recursive: true, force: true });
    }
    return 0;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
