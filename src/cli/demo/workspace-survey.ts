/**
 * The offline demo's job, as plain functions over tool results: survey a workspace, read its files,
 * write `report.md`. The scripted "brains" use these to decide their next call from what the tools
 * actually returned, so the demo does real work on any folder.
 */

export const REPORT_PATH = "report.md";
const MAX_FILES = 6;

/** File paths from a `list_dir` result (lines like `notes/a.md (120 bytes)`), the report itself excluded. */
export function filesInListing(listing: string): string[] {
  const files: string[] = [];
  for (const line of listing.split("\n")) {
    const match = /^(.+) \((\d+) bytes\)$/.exec(line.trim());
    if (match?.[1] && match[1] !== REPORT_PATH) files.push(match[1]);
  }
  return files.slice(0, MAX_FILES);
}

export type FileSummary = { path: string; lines: number; firstLine: string };

/** What the report says about one file, from a `read_file` result (numbered lines `3\ttext`). */
export function summarizeRead(path: string, result: string): FileSummary {
  const lines = result.split("\n").filter((line) => /^\d+\t/.test(line));
  const text = lines.map((line) => line.slice(line.indexOf("\t") + 1));
  const firstLine = text.find((line) => line.trim() !== "")?.trim().replace(/^#+\s*/, "") ?? "(empty)";
  return { path, lines: lines.length, firstLine: firstLine.length > 80 ? `${firstLine.slice(0, 77)}…` : firstLine };
}

export function reportMarkdown(summaries: readonly FileSummary[]): string {
  const rows = summaries.map((s) => `| ${s.path} | ${s.lines} | ${s.firstLine.replace(/\|/g, "\\|")} |`);
  const total = summaries.reduce((sum, s) => sum + s.lines, 0);
  return [
    "# Workspace report",
    "",
    `${summaries.length} file(s), ${total} line(s) in all.`,
    "",
    "| file | lines | first line |",
    "|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
