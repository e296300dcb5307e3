import { z } from "zod";
import { defineTool, ToolError, type Tool } from "../../core/tool.js";

/** A tiny shared notepad: enough state to show two clients seeing each other's writes. */
export function noteTools(): Tool[] {
  const notes: string[] = [];
  return [
    defineTool({
      name: "add_note",
      description: "Add a note to the shared notepad.",
      parameters: z.object({ text: z.string().min(1).describe("The note"), pinned: z.boolean().default(false) }),
      execute: ({ text, pinned }) => {
        if (notes.includes(text)) throw new ToolError(`A note "${text}" exists already; call list_notes to see them.`);
        notes.push(pinned ? `[pinned] ${text}` : text);
        return `Added note ${notes.length}.`;
      },
    }),
    defineTool({
      name: "list_notes",
      description: "List the notes on the shared notepad.",
      parameters: z.object({}),
      readOnly: true,
      execute: () => (notes.length === 0 ? "No notes." : notes.map((note, i) => `${i + 1}. ${note}`).join("\n")),
    }),
  ];
}
