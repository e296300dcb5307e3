// Regression: a plan-and-execute run whose planner answered with something other than JSON twice ran
// the whole task as one step and exited 0 without a word. The CLI now prints a warning line, and the
// run's details in the viewer's API say the plan fell back.
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { inTurn, startTestServer, type TestServer } from "../../src/models/test-support/http-server.js";
import { assistantTurn } from "../../src/models/test-support/streamed-replies.js";
import { openRuns } from "../../src/runs/runs.js";
import { startViewer } from "../../src/web/viewer-server.js";
import { freshHome, runCli, workspace } from "./cli-harness.js";

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

it("a planner that never gives a usable plan is a warning on stderr and a planning failure in the run's details", async () => {
  const home = freshHome();
  // Planner twice, then the executor of the one step, then the replanner.
  const junk = assistantTurn("Sure, I will summarise the notes right away.");
  const server = await startTestServer(inTurn(junk, junk, assistantTurn("Summarised."), assistantTurn('{"answer": "The notes are summarised."}')));
  servers.push(server);
  const result = await runCli(["run", "Summarise the notes", "-s", "plan-execute", "-m", "openai:gpt-test", "-w", workspace(home)], {
    home,
    env: { OPENAI_API_KEY: "sk-none", OPENAI_BASE_URL: `${server.url}/v1` },
  });
  expect(result.code, result.stderr).toBe(0);
  expect(server.requests).toHaveLength(4);
  expect(result.stdout).toContain("The notes are summarised.");
  expect(result.stderr).toMatch(/^warning: the plan-and-execute planner's reply could not be used \(2 tries\): .*JSON.*; the whole task runs as one step$/m);

  const runs = openRuns({ store: join(home, "stepwise.db") });
  const viewer = await startViewer({ runs });
  try {
    const [run] = await runs.list(1);
    const details = (await (await fetch(`${viewer.url}api/runs/${run!.id}`)).json()) as { run: { status: string }; planningFailures: { workflow: string; instead: string; errors: string[] }[] };
    expect(details.run.status).toBe("final");
    expect(details.planningFailures).toMatchObject([{ workflow: "plan-and-execute", instead: "task-as-one-step" }]);
    expect(details.planningFailures[0]?.errors).toHaveLength(2);
  } finally {
    await viewer.close();
    await runs.close();
  }
}, 60_000);
