import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteRunStore } from "./sqlite-run-store.js";
import * as vitest from "vitest";
import { describeRunStore } from "../testing.js";

describeRunStore("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-runs-"));
  const file = join(dir, "stepwise.db");
  const store = new SqliteRunStore(file, { pollMs: 10 });
  return {
    store,
    reopen: async () => new SqliteRunStore(file, { pollMs: 10 }),
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}, vitest);
