// What every consumer program reports: one line per check, and a failing exit code if any failed.
export { meetingPoint } from "./meeting-point.js";

/**
 * The todo list's options in these programs: recite it at the tail of every request, so each request
 * shows which list it was given (by default a list the model wrote a few turns back is not recited).
 */
export const AT_EVERY_TAIL = { reciteAfterTokens: 0 };

const failed: string[] = [];

export function check(ok: boolean, what: string): void {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failed.push(what);
}

export function finish(): void {
  if (failed.length > 0) process.exitCode = 1;
}

/** The recited lists in a request's text, each `<todo-list>…</todo-list>`. */
export function recitedLists(text: string): string[] {
  return text.match(/<todo-list>[\s\S]*?<\/todo-list>/g) ?? [];
}

/** Whether every list recited to a thread names only that thread's items. */
export function recitesOnlyItsOwn(requests: { thread: string; text: string }[], threads: string[]): boolean {
  return requests.every(({ thread, text }) =>
    recitedLists(text).every((list) => list.includes(thread) && threads.filter((t) => t !== thread).every((other) => !list.includes(other))),
  );
}
