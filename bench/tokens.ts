import { encode } from "gpt-tokenizer/encoding/o200k_base";

/** Exact o200k token count, as the benchmarks report tokens. */
export function countTokens(text: string): number {
  return encode(text).length;
}

/** The o200k tokens of `text`, for measuring what two requests share. */
export function tokenize(text: string): number[] {
  return encode(text);
}
