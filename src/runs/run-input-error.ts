/** A run asked for something it cannot have (an unknown strategy, a missing workspace): the caller can fix it. */
export class RunInputError extends Error {
  override name = "RunInputError";
}

/**
 * The run's model cannot be made in this process: its key is not set here, or this process points
 * the provider at another endpoint than the run's. The message says what to set; nothing of the run
 * changed, so a process that has it can go on.
 */
export class ModelUnavailableError extends RunInputError {
  override name = "ModelUnavailableError";
}
