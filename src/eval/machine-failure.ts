/**
 * Error codes that say the machine failed a trial, not the model: the disk or the store full, I/O
 * errors, a read-only file system, no file descriptors left. Node's errno codes and SQLite's (a
 * better-sqlite3 error's `code`, SQLITE_IOERR with its subcodes).
 */
const MACHINE_CODES = /^(ENOSPC|EDQUOT|EIO|EROFS|EMFILE|ENFILE|SQLITE_FULL|SQLITE_IOERR\w*|SQLITE_CANTOPEN|SQLITE_READONLY\w*|SQLITE_NOMEM)$/;

/** Why the machine failed, when `error` (or an error it was caused by) is one of those; undefined when it is the run's own failure. */
export function machineFailure(error: unknown): string | undefined {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code !== "string" || !MACHINE_CODES.test(code)) continue;
    // Node's errno messages begin with their code already ("ENOSPC: no space left on device, write"); SQLite's do not.
    const message = cause.message.split("\n")[0] ?? "";
    return message.startsWith(code) ? message : `${code}: ${message}`;
  }
  return undefined;
}
