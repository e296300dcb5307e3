import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freshHome, runCli, workspace } from "./cli-harness.js";

type OtlpSpan = { name: string; spanId: string; parentSpanId?: string; attributes: { key: string; value: Record<string, unknown> }[] };
type Received = { path: string; contentType: string; spans: OtlpSpan[] };

/** A stand-in OTLP/HTTP collector on a local port: keeps every trace request it gets. */
async function collector() {
  const received: Received[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
    const spans = body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    received.push({ path: req.url ?? "", contentType: String(req.headers["content-type"]), spans });
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

const attribute = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value;

describe("stepwise run with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("sends the run's spans to the collector before it exits", async () => {
    const otlp = await collector();
    close = otlp.close;
    const home = freshHome();
    const result = await runCli(["run", "Write a report", "--model", "scripted:demo", "--workspace", workspace(home)], {
      home,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(otlp.received.map((r) => r.path)).toContain("/v1/traces");
    expect(otlp.received[0]?.contentType).toContain("application/json");
    const spans = otlp.received.flatMap((r) => r.spans);
    const run = spans.find((s) => s.name.startsWith("invoke_agent "));
    expect(run && attribute(run, "gen_ai.operation.name")).toEqual({ stringValue: "invoke_agent" });
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    expect(chats.length).toBeGreaterThan(0);
    expect(chats.every((chat) => chat.parentSpanId === run?.spanId)).toBe(true);
    const write = spans.find((s) => s.name === "execute_tool write_file");
    expect(write?.parentSpanId).toBe(run?.spanId);
  });

  it("says in one line when the collector cannot be reached, and the run still succeeds", async () => {
    const otlp = await collector();
    await otlp.close();
    const home = freshHome();
    const result = await runCli(["run", "Write a report", "--model", "scripted:demo", "--workspace", workspace(home)], {
      home,
      // The exporter retries until its timeout: a short one keeps the test quick.
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_TIMEOUT: "1000" },
    });
    expect(result.code).toBe(0);
    expect(result.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^stepwise: could not send traces to http:\/\/127\.0\.0\.1:\d+ \(.+\); the run is not affected$/)]);
  });
});
