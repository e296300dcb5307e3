import { describe, expect, it } from "vitest";
import type { ChatModel } from "../../core/model.js";
import { scriptedModel } from "../../models/scripted.js";
import { requestReply } from "./model-reply.js";

describe("requestReply", () => {
  it("streams when the model can, handing each delta on", async () => {
    const deltas: string[] = [];
    const reply = await requestReply(scriptedModel(["abcdefgh"], { streamChunkSize: 3 }), [{ role: "user", content: "hi" }], {
      onText: (d) => deltas.push(d),
    });
    expect(deltas).toEqual(["abc", "def", "gh"]);
    expect(reply).toEqual({ role: "assistant", content: "abcdefgh" });
  });

  it("falls back to generate for a model without stream, handing the whole text on once", async () => {
    const scripted = scriptedModel(["whole"]);
    const generateOnly: ChatModel = { id: "plain", generate: (req) => scripted.generate(req) };
    const deltas: string[] = [];
    const reply = await requestReply(generateOnly, [{ role: "user", content: "hi" }], { onText: (d) => deltas.push(d) });
    expect(deltas).toEqual(["whole"]);
    expect(reply.content).toBe("whole");
  });
});
