import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { z } from "zod";
import { boundedQuote } from "../core/bounded-quote.js";
import { defineTool, ToolError, type Tool } from "../core/tool.js";

type Document = { id: string; title: string; text: string; words: string[] };

const HITS = 5;
const SNIPPET_CHARS = 160;

/**
 * A research task's tools over its corpus folder (outside the workspace): `search_corpus` ranks
 * documents by the query's words, `read_document` returns one whole. The documents are read once,
 * here; the model names them by id, never by path.
 */
export function corpusTools(dir: string): Tool[] {
  const docs = readCorpus(dir);
  const byId = new Map(docs.map((doc) => [doc.id, doc]));
  const search = defineTool({
    name: "search_corpus",
    description:
      `Search the document collection for this task by keywords. Returns up to ${HITS} documents, best first, ` +
      "each with its id, title and a snippet. Read a document in full with read_document.",
    parameters: z.object({ query: z.string().min(1).max(500).describe("Keywords to look for (any order).") }),
    readOnly: true,
    execute({ query }) {
      const terms = wordsOf(query);
      if (terms.length === 0) throw new ToolError(`The query ${boundedQuote(query)} has no words to search for; use a few keywords.`);
      const ranked = docs
        .map((doc) => ({ doc, score: terms.reduce((sum, term) => sum + doc.words.filter((w) => w === term).length, 0) }))
        .filter((hit) => hit.score > 0)
        .sort((a, b) => b.score - a.score || a.doc.id.localeCompare(b.doc.id))
        .slice(0, HITS);
      if (ranked.length === 0) return `No document mentions ${boundedQuote(query)}. Try other words.`;
      return ranked.map(({ doc }) => `${doc.id}: ${doc.title}\n  ${snippet(doc, terms)}`).join("\n");
    },
  });
  const read = defineTool({
    name: "read_document",
    description: "Read one document of the collection in full, by the id search_corpus gave.",
    parameters: z.object({ id: z.string().min(1).max(200).describe("The document's id, e.g. release-2-1.") }),
    readOnly: true,
    execute({ id }) {
      const doc = byId.get(id);
      if (!doc) throw new ToolError(`There is no document ${boundedQuote(id)}. Use an id that search_corpus returned (${docs.length} documents exist).`);
      return doc.text;
    },
  });
  return [search, read];
}

function readCorpus(dir: string): Document[] {
  return readdirSync(dir)
    .filter((name) => [".md", ".txt"].includes(extname(name)))
    .sort()
    .map((name) => {
      const text = readFileSync(join(dir, name), "utf8");
      const title = text.split("\n").find((line) => line.trim())?.replace(/^#+\s*/, "").trim() ?? name;
      return { id: name.slice(0, -extname(name).length), title, text, words: wordsOf(text) };
    });
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+(?:[.-][a-z0-9]+)*/g) ?? [];
}

/** The line around the first query word the document holds. */
function snippet(doc: Document, terms: string[]): string {
  const lower = doc.text.toLowerCase();
  const at = Math.min(...terms.map((t) => lower.indexOf(t)).filter((i) => i >= 0));
  const start = Math.max(0, at - SNIPPET_CHARS / 2);
  return doc.text.slice(start, start + SNIPPET_CHARS).replace(/\s+/g, " ").trim();
}
