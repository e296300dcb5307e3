import { withinArgumentLimits } from "../../core/argument-limits.js";
import type { Message } from "../../core/messages.js";

/** The files, URLs and ids a stretch of work touched: what a folded record must keep (Manus's lesson). */
export type TouchedReferences = { files: string[]; urls: string[]; ids: string[] };

const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>()[\]{}]+[^\s"'<>()[\]{}.,;:!?]/g;
// A path in free text needs a folder and an extension, so prose ("e.g.", "v1.2") is not taken for one.
const PATH_IN_TEXT = /(?<![\w/.~-])(?:~|\.{1,2})?\/?(?:[\w@+-][\w.@+-]*\/)+[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w/])/g;
// A lone string value under a path-like key may be a bare file name ("README.md").
const PATH_VALUE = /^(?:~|\.{1,2})?\/?(?:[\w.@+-]+\/)*[\w.@+-]+\/?$/;
const PATH_KEY = /(?:path|file|filename|dir|directory|folder|cwd)s?$/i;
const ID_KEY = /(?:^id|_id|Id|_ids|Ids)$/;

/** Collects references from tool-call arguments and tool results (JSON ones walked by key). */
export function collectReferences(messages: readonly Message[]): TouchedReferences {
  const found = { files: new Set<string>(), urls: new Set<string>(), ids: new Set<string>() };
  for (const message of messages) {
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) scan(call.arguments, found);
    if (message.role === "tool") scan(message.content, found);
  }
  return { files: [...found.files], urls: [...found.urls], ids: [...found.ids] };
}

type Found = { files: Set<string>; urls: Set<string>; ids: Set<string> };

function scan(text: string, found: Found): void {
  const json = parseJson(text);
  if (json !== undefined && typeof json === "object" && json !== null) walk(json, undefined, found);
  else scanText(text, found);
}

function walk(value: unknown, key: string | undefined, found: Found): void {
  if (Array.isArray(value)) for (const item of value) walk(item, key, found);
  else if (typeof value === "object" && value !== null) {
    for (const [name, inner] of Object.entries(value)) walk(inner, name, found);
  } else if (typeof value === "string" || typeof value === "number") {
    const text = String(value);
    if (key !== undefined && ID_KEY.test(key) && text.length <= 80) found.ids.add(`${key}=${text}`);
    else if (typeof value === "string" && key !== undefined && PATH_KEY.test(key) && PATH_VALUE.test(value)) found.files.add(value);
    else if (typeof value === "string") scanText(value, found);
  }
}

function scanText(text: string, found: Found): void {
  const urls = text.match(URL_PATTERN) ?? [];
  for (const url of urls) found.urls.add(url);
  // URLs are taken out first so their path parts are not read as files.
  const rest = urls.reduce((remaining, url) => remaining.split(url).join(" "), text);
  for (const path of rest.match(PATH_IN_TEXT) ?? []) found.files.add(path);
}

function parseJson(text: string): unknown {
  const trimmed = text.trimStart();
  // Too deep to walk by key: it is read as plain text instead.
  if ((!trimmed.startsWith("{") && !trimmed.startsWith("[")) || !withinArgumentLimits(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
