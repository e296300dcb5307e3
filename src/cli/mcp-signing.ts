import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunMcpServers } from "../runs/run-settings.js";

/** The key's file in the Stepwise home: readable by the user alone, like the OAuth tokens beside it. */
export const SIGNING_KEY_FILE = "mcp-signing.key";

/**
 * Signs the MCP servers a run keeps with a key of this Stepwise home, so a process that resumes the
 * run (a worker, the viewer, `--resume`) can tell servers this home set from servers anyone with write
 * access to the store put there: the store holds command lines, and whoever writes it could otherwise
 * have every worker run theirs. The key is made the first time it is needed.
 */
export class McpSigner {
  #key: Buffer | undefined;

  constructor(private readonly home: string) {}

  sign(mcp: RunMcpServers): RunMcpServers {
    const { signature: _old, ...servers } = mcp;
    return { ...servers, signature: this.#mac(servers) };
  }

  /** True when `mcp` carries this home's signature of exactly what it holds. */
  signed(mcp: RunMcpServers): boolean {
    if (typeof mcp.signature !== "string") return false;
    const expected = Buffer.from(this.#mac(mcp), "hex");
    const given = Buffer.from(mcp.signature, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  #mac(mcp: RunMcpServers): string {
    const servers = Object.entries(mcp.servers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return createHmac("sha256", this.#keyOf()).update(JSON.stringify([servers, mcp.configFile ?? null])).digest("hex");
  }

  /** Read, or made once and for all: written aside and linked into place, so two processes starting at once agree on one key. */
  #keyOf(): Buffer {
    if (this.#key) return this.#key;
    const file = join(this.home, SIGNING_KEY_FILE);
    try {
      this.#key = Buffer.from(readFileSync(file, "utf8").trim(), "hex");
    } catch {
      mkdirSync(this.home, { recursive: true, mode: 0o700 });
      const aside = `${file}.${process.pid}.tmp`;
      writeFileSync(aside, randomBytes(32).toString("hex"), { mode: 0o600 });
      try {
        linkSync(aside, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      } finally {
        rmSync(aside, { force: true });
      }
      this.#key = Buffer.from(readFileSync(file, "utf8").trim(), "hex");
    }
    return this.#key;
  }
}
