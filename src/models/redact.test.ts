import { describe, expect, it } from "vitest";
import { redactSecrets } from "./redact.js";

describe("redactSecrets", () => {
  it("removes every occurrence of a known key", () => {
    expect(redactSecrets("key abcd1234efgh was rejected (abcd1234efgh)", ["abcd1234efgh"])).toBe(
      "key [redacted] was rejected ([redacted])",
    );
  });

  it("removes bearer tokens and sk- keys it was not told about", () => {
    expect(redactSecrets("Authorization: Bearer tok_98765.xyz, then sk-proj-ABCDEFGHIJKLMNOPQRST failed")).toBe(
      "Authorization: Bearer [redacted], then [redacted] failed",
    );
  });

  it("leaves short strings alone, so a placeholder key cannot mangle a message", () => {
    expect(redactSecrets("ollama model failed", ["ollama"])).toBe("ollama model failed");
  });
});
