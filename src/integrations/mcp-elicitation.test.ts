import { describe, expect, it } from "vitest";
import { elicitationAnswer, elicitationQuestion, fitsInPausedRun, isSameElicitation, type McpElicitation } from "./mcp-elicitation.js";

const answer = (text: string) => ({ action: "answer" as const, text });

const oneField: McpElicitation = {
  message: "How many seats?",
  requestedSchema: { type: "object", properties: { seats: { type: "integer", minimum: 1, maximum: 40 } }, required: ["seats"] },
};
const form: McpElicitation = {
  message: "Book a room",
  requestedSchema: {
    type: "object",
    properties: {
      room: { type: "string", enum: ["Lovelace", "Turing"] },
      name: { type: "string", title: "Your name", minLength: 2 },
      tags: { type: "array", items: { enum: ["quiet", "window"] } },
      confirm: { type: "boolean", default: false },
    },
    required: ["room", "name"],
  },
};

describe("an MCP server's form as a question to the user", () => {
  it("reads a one-field form's answer as that field's value, checked against its type and bounds", () => {
    expect(elicitationAnswer(oneField, answer(" 12 "))).toEqual({ action: "accept", content: { seats: 12 } });
    expect(elicitationAnswer(oneField, answer('{"seats": 3}'))).toEqual({ action: "accept", content: { seats: 3 } });
    expect(elicitationAnswer(oneField, answer("2.5"))).toEqual({ problem: 'seats: expected a whole number, got "2.5"' });
    expect(elicitationAnswer(oneField, answer("99"))).toEqual({ problem: "seats: must be at most 40" });
    expect(elicitationAnswer(oneField, answer(""))).toEqual({ problem: "the form needs seats" });
  });

  it("reads a form of several fields from a JSON object: choices, lists, yes/no; says what is wrong", () => {
    expect(elicitationAnswer(form, answer('{"room": "Turing", "name": "Ada", "tags": "quiet, window", "confirm": "yes"}'))).toEqual({
      action: "accept",
      content: { room: "Turing", name: "Ada", tags: ["quiet", "window"], confirm: true },
    });
    expect(elicitationAnswer(form, answer("Turing"))).toEqual({ problem: "this form has 4 fields (room, name, tags, confirm): answer with a JSON object of them" });
    expect(elicitationAnswer(form, answer('{"room": "Hopper", "name": "Ada"}'))).toEqual({ problem: 'room: "Hopper" is not one of: Lovelace, Turing' });
    expect(elicitationAnswer(form, answer('{"room": "Turing", "name": "A"}'))).toEqual({ problem: "name: needs at least 2 characters" });
    expect(elicitationAnswer(form, answer('{"room": "Turing", "name": "Ada", "floor": 2}'))).toMatchObject({ problem: expect.stringMatching(/^the form has no field "floor"/) });
    expect(elicitationAnswer(form, answer('{"room": '))).toMatchObject({ problem: expect.stringMatching(/^the answer is not valid JSON/) });
    expect(elicitationAnswer(form, { action: "reject" })).toEqual({ action: "decline" });
  });

  it("shows the message and every field with its kind, need and default, bounded", () => {
    const text = elicitationQuestion({ ...form, message: `Book a room ${"x".repeat(5000)}` }, 'MCP server "rooms"');
    expect(text).toMatch(/^MCP server "rooms" asks: Book a room x+… \(\d+ more characters left out\)/);
    expect(text).toContain("- room (one of: Lovelace, Turing, required)");
    expect(text).toContain("- name (text, required) Your name");
    expect(text).toContain("- confirm (yes/no, optional, default false)");
    expect(text).toContain('Answer with a JSON object of the fields, e.g. {"room": …}');
    expect(text.length).toBeLessThan(2000);
    expect(elicitationQuestion(oneField, "S")).toContain("Answer with the seats (or a JSON object of the fields)");
  });

  it("knows its question again whatever the key order, and refuses one too large to keep", () => {
    const reordered = { requestedSchema: { required: ["seats"], properties: oneField.requestedSchema["properties"], type: "object" }, message: oneField.message };
    expect(isSameElicitation(reordered, oneField)).toBe(true);
    expect(isSameElicitation({ ...oneField, message: "How many?" }, oneField)).toBe(false);
    expect(fitsInPausedRun(oneField)).toBe(true);
    expect(fitsInPausedRun({ message: "x".repeat(20_000), requestedSchema: {} })).toBe(false);
  });
});
