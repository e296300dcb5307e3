import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { freshSchema } from "../stores/test-support/fresh-schema.js";
import { mcpCommand } from "./mcp-command.js";

describe("stepwise mcp on a PostgreSQL board (needs PostgreSQL on 127.0.0.1:5432)", () => {
  it("stops once when asked twice (Ctrl-C, then stdin ending): both callers wait and nothing rejects", async () => {
    const database = join(mkdtempSync(join(tmpdir(), "stepwise-mcp-")), "stepwise.db");
    const log = new Writable({ write: (_chunk, _encoding, done) => done() });
    // A schema of its own, so that the board is not left in the test database's public schema.
    const schema = await freshSchema();
    try {
      const stop = await mcpCommand({ database, http: true, host: "127.0.0.1", port: 0, store: schema.url, board: "mcp-stop-twice" }, log);
      await expect(Promise.all([stop(), stop()])).resolves.toEqual([undefined, undefined]);
      await expect(stop()).resolves.toBeUndefined();
    } finally {
      await schema.drop();
    }
  });
});
