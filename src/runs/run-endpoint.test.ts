import { describe, expect, it } from "vitest";
import { ModelUnavailableError } from "./run-input-error.js";
import { resumingEndpoint, startingEndpoint } from "./run-endpoint.js";

describe("a run's endpoint", () => {
  it("is where the spec's requests go when the run starts, the provider's default included; other models have none", () => {
    expect(startingEndpoint("openai:gpt-4o-mini", {})).toBe("https://api.openai.com/v1");
    expect(startingEndpoint("openai:gpt-4o-mini", { OPENAI_BASE_URL: "http://127.0.0.1:8080/v1" })).toBe("http://127.0.0.1:8080/v1");
    expect(startingEndpoint("ollama:qwen2.5:7b", { OLLAMA_BASE_URL: "http://gpu:11434/v1" })).toBe("http://gpu:11434/v1");
    expect(startingEndpoint("scripted:demo", {})).toBeUndefined();
    expect(startingEndpoint("test:appender", {})).toBeUndefined();
  });

  it("keeps no credentials: a user, password or query in the base URL is left out", () => {
    expect(startingEndpoint("openai:x", { OPENAI_BASE_URL: "https://me:secret@proxy.example/v1?key=abc#x" })).toBe("https://proxy.example/v1");
  });

  it("is what a resume uses: its own, whatever the process lacks; the same one with credentials takes the process's form", () => {
    expect(resumingEndpoint("r1", "openai:x", "http://127.0.0.1:8080/v1", {})).toBe("http://127.0.0.1:8080/v1");
    expect(resumingEndpoint("r1", "openai:x", "http://127.0.0.1:8080/v1", { OPENAI_BASE_URL: "http://127.0.0.1:8080/v1" })).toBe("http://127.0.0.1:8080/v1");
    expect(resumingEndpoint("r1", "openai:x", "https://proxy.example/v1", { OPENAI_BASE_URL: "https://me:secret@proxy.example/v1" })).toBe("https://me:secret@proxy.example/v1");
    // A run started before runs kept their endpoint goes where this process says.
    expect(resumingEndpoint("r1", "openai:x", undefined, { OPENAI_BASE_URL: "http://other/v1" })).toBeUndefined();
  });

  it("refuses a resume whose environment points the provider elsewhere, naming both", () => {
    const resume = () => resumingEndpoint("r1", "openai:x", "http://127.0.0.1:8080/v1", { OPENAI_BASE_URL: "https://api.openai.com/v1" });
    expect(resume).toThrow(ModelUnavailableError);
    expect(resume).toThrow(
      "run r1 was started against http://127.0.0.1:8080/v1, but this process's OPENAI_BASE_URL is https://api.openai.com/v1; unset OPENAI_BASE_URL (or set it to http://127.0.0.1:8080/v1) to go on against the run's own endpoint",
    );
  });
});
