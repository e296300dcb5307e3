import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import type { ChatModel, ModelStreamPart } from "../core/model.js";
import { openRuns, type Runs } from "./runs.js";

let dir: string | undefined;
let runs: Runs | undefined;
afterEach(async () => {
  await runs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("logs the text a model streamed before it paused while it is still paused, though the log keeps text in batches", async () => {
  dir = mkdtempSync(join(tmpdir(), "stepwise-paused-stream-"));
  let resume!: () => void;
  const paused = new Promise<void>((resolve) => (resume = resolve));
  const model: ChatModel = {
    id: "test:pausing",
    generate: () => Promise.reject(new Error("streams only")),
    async *stream(): AsyncIterable<ModelStreamPart> {
      yield { type: "text-delta", text: "Thinking about it" };
      // Goes on only once a reader of the log has seen the text so far.
      await paused;
      yield { type: "text-delta", text: "… done." };
      yield { type: "response", response: { message: { role: "assistant", content: "Thinking about it… done." } } };
    },
  };
  runs = openRuns({ store: join(dir, "stepwise.db") });
  const run = await runs.start({ task: "Think", strategy: "todos", model, settings: { workspace: dir } });
  const texts: string[] = [];
  for await (const { event } of runs.events(run.id)) {
    if (event.type !== "text-delta") continue;
    texts.push(event.text);
    resume();
  }
  expect(texts).toEqual(["Thinking about it", "… done."]);
  expect(await run.done).toMatchObject({ status: "final", text: "Thinking about it… done." });
});
