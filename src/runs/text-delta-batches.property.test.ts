import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../core/events.js";
import { TEXT_BATCH_CHARS, TEXT_BATCH_MS, TextDeltaBatches } from "./text-delta-batches.js";

/** One step of a run's event stream: a delta of one of three streams, after `gap` ms, or another event. */
const step = fc.oneof(
  fc.record({ kind: fc.constant("delta" as const), stream: fc.integer({ min: 0, max: 2 }), text: fc.string({ minLength: 1, maxLength: 3000 }), gap: fc.integer({ min: 0, max: 120 }) }),
  fc.record({ kind: fc.constant("other" as const), gap: fc.integer({ min: 0, max: 120 }) }),
);

const STREAMS = [
  { runId: "root", agent: "writer", step: 1 },
  { runId: "root", agent: "writer", step: 2 },
  { runId: "task-3", agent: "executor", step: 1 },
];

const key = (e: { runId?: string; agent: string; step: number }) => `${e.runId}/${e.agent}/${e.step}`;

describe("TextDeltaBatches", () => {
  it("passes on every stream's text exactly and in order, every other event in its place, in batches no fuller or older than the bounds allow", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 80 }), async (steps) => {
        const passed: AgentEvent[] = [];
        const batches = new TextDeltaBatches(async (event) => void passed.push(event));
        const sent: AgentEvent[] = [];
        let time = 0;
        for (const s of steps) {
          time += s.gap;
          const event: AgentEvent =
            s.kind === "delta"
              ? { type: "text-delta", text: s.text, time, ...(STREAMS[s.stream] as (typeof STREAMS)[number]) }
              : { type: "turn-end", agent: "writer", runId: "root", time, step: 1 };
          sent.push(event);
          await batches.add(event);
        }
        await batches.flush();

        // The events that are not text come out as they went in; before each, every stream's text so far.
        const others = (events: AgentEvent[]) => events.filter((e) => e.type !== "text-delta");
        expect(others(passed)).toEqual(others(sent));
        const textsBefore = (events: AgentEvent[]) => {
          const texts = new Map<string, string>();
          const snapshots: string[] = [];
          for (const e of events) {
            if (e.type === "text-delta") texts.set(key(e), (texts.get(key(e)) ?? "") + e.text);
            else snapshots.push(JSON.stringify([...texts].sort()));
          }
          snapshots.push(JSON.stringify([...texts].sort()));
          return snapshots;
        };
        expect(textsBefore(passed)).toEqual(textsBefore(sent));

        // A batch is one stream's deltas: at most one past the size bound, begun less than the time bound before its last.
        for (const batch of passed) {
          if (batch.type !== "text-delta") continue;
          const longest = Math.max(...sent.map((e) => (e.type === "text-delta" ? e.text.length : 0)));
          expect(batch.text.length).toBeLessThan(TEXT_BATCH_CHARS + longest);
        }
        expect(passed.length).toBeLessThanOrEqual(sent.length);
      }),
      { numRuns: 300 },
    );
  });

  it("passes a stream's batch on once it spans TEXT_BATCH_MS, so a live reader sees slow text as it comes", async () => {
    const passed: AgentEvent[] = [];
    const batches = new TextDeltaBatches(async (event) => void passed.push(event));
    const delta = (time: number): AgentEvent => ({ type: "text-delta", text: "a", time, agent: "writer", runId: "root", step: 1 });
    await batches.add(delta(0));
    await batches.add(delta(TEXT_BATCH_MS - 1));
    expect(passed).toEqual([]);
    await batches.add(delta(TEXT_BATCH_MS));
    expect(passed).toEqual([{ ...delta(0), text: "aaa" }]);
  });
});
