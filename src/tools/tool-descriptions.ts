// What the model reads about each workspace tool. Kept apart from the code so the wording can be
// reviewed, tested and measured on its own.

const PATHS = 'Paths are relative to the workspace root and use "/" (for example "src/app.ts"); nothing outside the workspace can be reached.';

export const READ_FILE_DESCRIPTION = [
  "Read a text file from the workspace. Lines come back numbered.",
  "Long files are cut off with a notice that tells you the start_line to continue from.",
  PATHS,
].join(" ");

export const LIST_DIR_DESCRIPTION = [
  'List the files and folders in a workspace folder ("." for the root); folders end with "/".',
  "Set recursive to true to include everything below it. node_modules and .git folders are skipped.",
  PATHS,
].join(" ");

export const SEARCH_DESCRIPTION = [
  "Find lines containing a text in the workspace's files, as path:line: text.",
  "Matching is exact and case-sensitive unless ignore_case is set; set regex to true to use a regular expression (RE2 syntax: no backreferences or lookaround).",
  "Give path to search only one folder or file. node_modules, .git and binary files are skipped.",
  PATHS,
].join(" ");

export const WRITE_FILE_DESCRIPTION = [
  "Create a text file or replace its entire content; missing folders are created.",
  "To change part of an existing file, prefer edit_file.",
  PATHS,
].join(" ");

export const EDIT_FILE_DESCRIPTION = [
  "Change part of a text file: old_text is replaced by new_text.",
  "old_text must match the file exactly, whitespace and line breaks included, and occur exactly once;",
  "add surrounding lines to make it unique, or set replace_all to true to replace every occurrence.",
  "Read the file first to copy the text exactly.",
  PATHS,
].join(" ");
