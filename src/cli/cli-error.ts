import { exitCodeOf } from "./run-endings.js";

/** A problem the user can fix: printed as one line on stderr, with a non-zero exit (a bad argument by default). */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode = exitCodeOf("usage"),
  ) {
    super(message);
  }
}
