import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WriteBatcher, type BatchedWrite } from "./write-batcher.js";

/** A deferred answer to one batch, so that a test decides when the "database" replies. */
type Sent = { writes: readonly BatchedWrite<number>[]; reply: (outputs: Map<string, number>) => void; fail: (error: unknown) => void };

function batcher(opts: { maxInFlight?: number; maxBatch?: number; nothingWritten?: (error: unknown) => boolean } = {}) {
  const sent: Sent[] = [];
  let arrived: (() => void) | undefined;
  const writes = new WriteBatcher<number, number>({
    send: (batch) =>
      new Promise((reply, fail) => {
        sent.push({ writes: batch, reply, fail });
        arrived?.();
      }),
    maxInFlight: opts.maxInFlight ?? 1,
    maxBatch: opts.maxBatch ?? 100,
    nothingWritten: opts.nothingWritten ?? (() => true),
  });
  /** Resolves once `n` batches have been sent in all. */
  const sentCount = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (sent.length >= n ? resolve() : (arrived = check));
      check();
    });
  return { writes, sent, sentCount };
}

const echo = (writes: readonly BatchedWrite<number>[]) => new Map(writes.map(({ key, input }) => [key, input * 10]));

describe("WriteBatcher", () => {
  it("sends the writes of one turn together, and those that arrive while it is in flight together in the next", async () => {
    const { writes, sent, sentCount } = batcher();
    const first = [writes.write("a", 1), writes.write("b", 2)];
    await sentCount(1);
    const later = [writes.write("c", 3), writes.write("d", 4), writes.write("e", 5)];
    expect(sent).toHaveLength(1);
    sent[0]!.reply(echo(sent[0]!.writes));
    await sentCount(2);
    sent[1]!.reply(echo(sent[1]!.writes));
    expect(await Promise.all([...first, ...later])).toEqual([10, 20, 30, 40, 50]);
    expect(sent.map((batch) => batch.writes.map(({ key }) => key))).toEqual([["a", "b"], ["c", "d", "e"]]);
  });

  it("resolves a write the batch left out (it took no effect) with undefined", async () => {
    const { writes, sent, sentCount } = batcher();
    const both = Promise.all([writes.write("kept", 1), writes.write("fenced", 2)]);
    await sentCount(1);
    sent[0]!.reply(new Map([["kept", 10]]));
    expect(await both).toEqual([10, undefined]);
  });

  it("takes at most one write per key in a batch, so one key's writes stay in order", async () => {
    const { writes, sent, sentCount } = batcher();
    const all = Promise.all([writes.write("a", 1), writes.write("a", 2), writes.write("b", 3)]);
    await sentCount(1);
    expect(sent[0]!.writes).toEqual([{ key: "a", input: 1 }, { key: "b", input: 3 }]);
    sent[0]!.reply(echo(sent[0]!.writes));
    await sentCount(2);
    expect(sent[1]!.writes).toEqual([{ key: "a", input: 2 }]);
    sent[1]!.reply(echo(sent[1]!.writes));
    expect(await all).toEqual([10, 20, 30]);
  });

  it("splits a refused batch into writes of their own, so only the bad one fails", async () => {
    const { writes, sent, sentCount } = batcher();
    const results = Promise.allSettled([writes.write("a", 1), writes.write("bad", 2), writes.write("c", 3)]);
    await sentCount(1);
    sent[0]!.fail(new Error("refused"));
    await sentCount(4);
    for (const alone of sent.slice(1)) {
      if (alone.writes[0]?.key === "bad") alone.fail(new Error("refused"));
      else alone.reply(echo(alone.writes));
    }
    expect((await results).map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([10, "refused", 30]);
    expect(sent.slice(1).map((batch) => batch.writes.length)).toEqual([1, 1, 1]);
  });

  it("fails the whole batch, tried once, when the failure may have written it (a lost connection)", async () => {
    const { writes, sent, sentCount } = batcher({ nothingWritten: () => false });
    const results = Promise.allSettled([writes.write("a", 1), writes.write("b", 2)]);
    await sentCount(1);
    sent[0]!.fail(new Error("connection lost"));
    expect((await results).map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(sent).toHaveLength(1);
  });

  it("applies every write exactly once, each key's in the order written, within the batch size and the writes in flight", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom("a", "b", "c", "d"), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        async (turns, maxInFlight, maxBatch) => {
          const applied = new Map<string, number[]>();
          let inFlight = 0;
          let mostInFlight = 0;
          const writes = new WriteBatcher<number, number>({
            async send(batch) {
              expect(batch.length).toBeLessThanOrEqual(maxBatch);
              expect(new Set(batch.map(({ key }) => key)).size).toBe(batch.length);
              mostInFlight = Math.max(mostInFlight, ++inFlight);
              await new Promise((resolve) => setImmediate(resolve));
              inFlight--;
              for (const { key, input } of batch) applied.set(key, [...(applied.get(key) ?? []), input]);
              return echo(batch);
            },
            maxInFlight,
            maxBatch,
            nothingWritten: () => true,
          });
          const written: Promise<number | undefined>[] = [];
          const expected = new Map<string, number[]>();
          let n = 0;
          for (const turn of turns) {
            for (const key of turn) {
              expected.set(key, [...(expected.get(key) ?? []), n]);
              written.push(writes.write(key, n++));
            }
            await new Promise((resolve) => setImmediate(resolve));
          }
          expect(await Promise.all(written)).toEqual(Array.from({ length: n }, (_, i) => i * 10));
          expect(applied).toEqual(expected);
          expect(mostInFlight).toBeLessThanOrEqual(maxInFlight);
        },
      ),
    );
  });
});
