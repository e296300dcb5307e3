import { RE2JS } from "re2js";
import { z } from "zod";
import { boundedQuote, boundedText } from "../core/bounded-quote.js";
import { defineTool, ToolError, type Tool } from "../core/tool.js";
import { fileError, notARegularFile } from "./file-errors.js";
import { readTextFile } from "./text-file.js";
import { SEARCH_DESCRIPTION } from "./tool-descriptions.js";
import { walkWorkspace } from "./workspace-walk.js";
import type { WorkspaceLimits } from "./workspace-limits.js";
import type { Located, WorkspaceRoot } from "./workspace-root.js";
import type { HeldFolder } from "./held-folder.js";

const MAX_LINE_CHARS = 200;
/** A line that long is rare; a pattern that long is a mistake, or an attempt to flood the reply. */
const MAX_PATTERN_CHARS = 1_000;

export function searchTool(workspace: WorkspaceRoot, limits: WorkspaceLimits): Tool {
  return defineTool({
    name: "search",
    description: SEARCH_DESCRIPTION,
    parameters: z.object({
      pattern: z.string().min(1).describe("Text to look for (a regular expression when regex is true)."),
      path: z.string().default(".").describe("Folder or file to search, relative to the workspace root."),
      regex: z.boolean().default(false),
      ignore_case: z.boolean().default(false),
    }),
    readOnly: true,
    async execute({ pattern, path, regex, ignore_case: ignoreCase }, { signal }) {
      if (pattern.length > MAX_PATTERN_CHARS) {
        throw new ToolError(
          `The pattern is ${pattern.length} characters long, over the ${MAX_PATTERN_CHARS} accepted: ${boundedQuote(pattern, 80)}. Search for a shorter, distinctive part of it.`,
        );
      }
      const matches = lineMatcher(pattern, regex, ignoreCase);
      const scope = await workspace.locate(path, "read");
      const found: string[] = [];
      let more = false;
      let searched = 0;
      try {
        for await (const file of filesIn(scope)) {
          if (signal?.aborted) throw new ToolError(`The search was cancelled after ${searched} files, with ${found.length} matching lines so far.`);
          searched++;
          let text: string;
          try {
            ({ text } = await readTextFile(file.folder, file.name, file.relative, limits.maxFileBytes));
          } catch {
            continue; // binary, too large or unreadable: not something a text search can answer
          }
          const lines = text.split("\n");
          for (let index = 0; index < lines.length && !more; index++) {
            const line = lines[index] ?? "";
            if (!matches(line)) continue;
            if (found.length === limits.maxSearchResults) more = true;
            else found.push(`${file.relative}:${index + 1}: ${clip(line.trim())}`);
          }
          if (more) break;
        }
      } finally {
        await scope.close();
      }
      if (found.length === 0) return `No lines match ${boundedQuote(pattern)} in ${boundedQuote(scope.relative)}.`;
      if (more) {
        found.push(`[Stopped after ${limits.maxSearchResults} matches. Use a more specific pattern or a narrower path to see the rest.]`);
      }
      return found.join("\n");
    },
  });
}

/**
 * Plain text is matched as written. A regular expression runs on RE2 (re2js), whose matching time
 * is linear in the line: a pattern like ^(a+)+$ cannot freeze the process as it would in RegExp.
 */
function lineMatcher(pattern: string, regex: boolean, ignoreCase: boolean): (line: string) => boolean {
  if (!regex) {
    const needle = ignoreCase ? pattern.toLowerCase() : pattern;
    return ignoreCase ? (line) => line.toLowerCase().includes(needle) : (line) => line.includes(needle);
  }
  let expression: RE2JS;
  try {
    expression = RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    const quoted = boundedQuote(pattern);
    const feature = unsupportedFeature(pattern);
    if (feature) {
      throw new ToolError(
        `${quoted} uses ${feature}, which this search does not support: patterns run on a linear-time engine (RE2 syntax), without backreferences or lookaround. Rewrite it without them, or set regex to false to search for the text as written.`,
      );
    }
    const reason = (error instanceof Error ? error.message : String(error)).replace(/^error parsing regexp: /, "");
    throw new ToolError(`${quoted} is not a valid regular expression (${boundedText(reason)}). Fix it, or set regex to false to search for the text as written.`);
  }
  return (line) => expression.test(line);
}

/** The construct RE2 has no way to run in linear time, named so the model knows what to drop. */
function unsupportedFeature(pattern: string): string | undefined {
  if (/\\[1-9]/.test(pattern)) return "a backreference (\\1 to \\9)";
  if (/\\k</.test(pattern)) return "a named backreference (\\k<name>)";
  if (/\(\?<[=!]/.test(pattern)) return "lookbehind ((?<= …) or (?<! …))";
  if (/\(\?[=!]/.test(pattern)) return "lookahead ((?= …) or (?! …))";
  if (/\(\?>/.test(pattern)) return "an atomic group ((?> …))";
  if (/[*+?}][+]/.test(pattern)) return "a possessive quantifier (such as a++)";
  return undefined;
}

type SearchedFile = { folder: HeldFolder; name: string; relative: string };

async function* filesIn(scope: Located): AsyncGenerator<SearchedFile> {
  if (scope.kind === "missing") throw fileError(Object.assign(new Error("missing"), { code: "ENOENT" }), scope.relative);
  if (scope.name !== undefined) {
    if (scope.kind === "other" && scope.stats) throw notARegularFile(scope.stats, scope.relative);
    yield { folder: scope.folder, name: scope.name, relative: scope.relative };
    return;
  }
  for await (const entry of walkWorkspace(scope.folder, { recursive: true, protection: scope.protection })) {
    if (entry.kind === "file") yield entry;
  }
}

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
}
