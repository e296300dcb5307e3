/** A problem the user can fix: printed as one line on stderr, with a non-zero exit. */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}
