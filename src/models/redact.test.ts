import { describe, expect, it } from "vitest";
import { redactSecrets, redactUrlCredentials } from "./redact.js";

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

  it("removes other providers' key shapes it was not told about: Google, Anthropic, Groq, xAI, Hugging Face", () => {
    const keys = [
      "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
      "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
      "gsk_abcdefghijklmnopqrstuvwxyz0123",
      "xai-abcdefghijklmnopqrstuvwxyz0123",
      "hf_abcdefghijklmnopqrstuvwxyz0123",
    ];
    const redacted = redactSecrets(`rejected: ${keys.join(", ")}.`);
    expect(redacted).toBe(`rejected: ${keys.map(() => "[redacted]").join(", ")}.`);
  });

  it("removes a key of any shape where keys stand: key headers, api_key fields, a key query parameter", () => {
    expect(redactSecrets('x-api-key: Zq9-odd.shape.1 and "api_key":"plain-Value-77"')).toBe(
      'x-api-key: [redacted] and "api_key":"[redacted]"',
    );
    expect(redactSecrets("GET https://example.test/v1/models?alt=sse&key=Zq9oddshape1#x failed")).toBe(
      "GET https://example.test/v1/models?alt=sse&key=[redacted]#x failed",
    );
    expect(redactSecrets("Incorrect API key: Zq9oddshape1")).toBe("Incorrect API key: [redacted]");
  });

  it("leaves ordinary text about keys alone", () => {
    const text = "The key idea: the monkey=banana rule, and an API key provided by the user is missing.";
    expect(redactSecrets(text)).toBe(text);
  });

  it("leaves short strings alone, so a placeholder key cannot mangle a message", () => {
    expect(redactSecrets("ollama model failed", ["ollama"])).toBe("ollama model failed");
  });
});

describe("redactUrlCredentials", () => {
  it("replaces a URL's password, user part and credential parameters, and keeps where it leads", () => {
    expect(redactUrlCredentials("https://alice:s3cret@mcp.example.com/v1?api_key=abc123&team=x&access_token=t0k#top")).toBe(
      "https://alice:[redacted]@mcp.example.com/v1?api_key=[redacted]&team=x&access_token=[redacted]#top",
    );
    expect(redactUrlCredentials("https://ghp_abcdefghijklmnop@mcp.example.com/")).toBe("https://[redacted]@mcp.example.com/");
    expect(redactUrlCredentials("https://mcp.example.com/v1?password=pw&sslmode=require&session_id=s1")).toBe("https://mcp.example.com/v1?password=[redacted]&sslmode=require&session_id=[redacted]");
    expect(redactUrlCredentials("https://mcp.example.com/mcp?page=2")).toBe("https://mcp.example.com/mcp?page=2");
  });
});
