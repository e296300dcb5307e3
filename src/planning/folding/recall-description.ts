/** What the model reads about `recall`: when folded work is worth reading again, and what to pass. */
export const RECALL_DESCRIPTION = [
  "Read again, exactly as it was, work that was folded out of your context to save room.",
  "A finished unit of work appears in your history as a <folded-work unit=\"…\"> note listing its outcome,",
  "files, URLs and ids; a large old tool result appears as a short note with an id.",
  "Pass that unit reference (for example \"subtask:2\") or that id as `unit`, and with `match` (a file, URL or id the note lists) get back only the calls and results that mention it.",
  "Only read back what you need: the note's summary is usually enough, and recalled text fills your context again.",
].join(" ");
