/**
 * The parts of a test framework a store suite runs on, passed in rather than imported, so the suite
 * runs under the framework the user already has: vitest's (`import * as vitest from "vitest"`) and
 * Jest's (its globals) fit as they are; under node:test, pass its describe/it/hooks and the `expect`
 * package.
 */
export interface TestFramework {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  beforeEach(body: () => Promise<void>): void;
  afterEach(body: () => Promise<void>): void;
  expect: Expect;
}

/** The matchers the suites use, which Jest's and vitest's `expect` share. */
export interface Expect {
  (actual: unknown): Matchers;
  any(constructor: unknown): any;
  stringMatching(pattern: string | RegExp): any;
  stringContaining(text: string): any;
}

export interface Matchers {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toMatchObject(expected: object): void;
  toBeNull(): void;
  toBeUndefined(): void;
  toBeInstanceOf(expected: unknown): void;
  toBeGreaterThan(expected: number): void;
  toBeGreaterThanOrEqual(expected: number): void;
  toBeLessThan(expected: number): void;
  toHaveLength(expected: number): void;
  toContain(expected: unknown): void;
  toThrow(expected?: unknown): void;
  readonly not: Matchers;
  readonly rejects: {
    toThrow(expected?: unknown): Promise<void>;
    toBeInstanceOf(expected: unknown): Promise<void>;
  };
}

/**
 * Waits until `check` holds, asking again every few milliseconds (a store's clock and its
 * notifications are outside the test's control), and fails saying what never happened.
 */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Waited ${timeoutMs / 1000} s for ${what}; it never happened.`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
