import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cloneMessages, type Message } from "./messages.js";

const text = fc.string({ maxLength: 20 });
const call = fc.record({ id: text, name: text, arguments: text });
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant("system" as const), content: text }),
  fc.record({ role: fc.constant("user" as const), content: text }),
  fc.record({ role: fc.constant("assistant" as const), content: text, toolCalls: fc.array(call, { maxLength: 3 }) }, { requiredKeys: ["role", "content"] }),
  fc.record({ role: fc.constant("tool" as const), content: text, toolCallId: text, name: text }),
);

describe("cloneMessages", () => {
  it("copies every message equal to the original, sharing no object with it", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), (messages) => {
        const copy = cloneMessages(messages);
        expect(copy).toEqual(messages);
        copy.forEach((cloned, i) => {
          const original = messages[i] as Message;
          expect(cloned).not.toBe(original);
          if (cloned.role === "assistant" && cloned.toolCalls && original.role === "assistant" && original.toolCalls) {
            expect(cloned.toolCalls).not.toBe(original.toolCalls);
            cloned.toolCalls.forEach((c, j) => expect(c).not.toBe(original.toolCalls?.[j]));
          }
        });
      }),
    );
  });

  it("leaves the original untouched when the copy's tool calls change", () => {
    const original: Message[] = [{ role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read", arguments: "{}" }] }];
    const [copy] = cloneMessages(original);
    if (copy?.role !== "assistant" || !copy.toolCalls?.[0]) throw new Error("expected an assistant message with a call");
    copy.toolCalls[0].arguments = '{"path":"x"}';
    copy.toolCalls.push({ id: "c2", name: "write", arguments: "{}" });
    expect(original).toEqual([{ role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read", arguments: "{}" }] }]);
  });
});
