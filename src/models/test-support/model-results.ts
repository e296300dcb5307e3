import { expect } from "vitest";
import type { ModelStreamPart } from "../../core/model.js";
import { ModelError } from "../model-error.js";

/** Every part of a streamed response, in order. */
export async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

/** The ModelError a call must fail with (the test fails if it succeeds or fails otherwise). */
export async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}
