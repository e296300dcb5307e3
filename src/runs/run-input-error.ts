/** A run asked for something it cannot have (an unknown strategy, a missing workspace): the caller can fix it. */
export class RunInputError extends Error {
  override name = "RunInputError";
}
