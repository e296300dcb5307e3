import { z } from "zod";
import type { Message } from "../../../core/messages.js";
import { PluginHosts, type Plugin } from "../../../core/plugin.js";
import { defineTool } from "../../../core/tool.js";
import type { ScriptedTurn } from "../../../models/scripted.js";

/**
 * A minimal planning plugin for folding tests, doing exactly what a real one must: announce
 * `unit-start` / `unit-end` from its tools, and recite the plan at the tail of every request.
 */
export function workUnits(opts: { recite?: boolean } = {}): Plugin & { recitation(): string } {
  const hosts = new PluginHosts();
  const states = new Map<string, string>();
  const recitation = () => ["<plan>", ...[...states].map(([id, state]) => `- unit ${id}: ${state}`), "</plan>"].join("\n");
  return {
    name: "work-units",
    recitation,
    attach: (host) => hosts.add(host),
    tools: () => [
      defineTool({
        name: "start_unit",
        description: "Start a unit of work.",
        parameters: z.object({ id: z.string() }),
        execute: ({ id }) => {
          states.set(id, "in progress");
          hosts.emit({ type: "unit-start", unit: { kind: "unit", id, title: `Unit ${id}` } });
          return `Unit ${id} started.`;
        },
      }),
      defineTool({
        name: "finish_unit",
        description: "Finish a unit of work with its outcome.",
        parameters: z.object({ id: z.string(), outcome: z.string() }),
        execute: ({ id, outcome }) => {
          states.set(id, `done (${outcome})`);
          hosts.emit({ type: "unit-end", unit: { kind: "unit", id, title: `Unit ${id}` }, outcome });
          return `Unit ${id} finished.`;
        },
      }),
    ],
    beforeModel(): Message[] | void {
      if ((opts.recite ?? true) && states.size > 0) return [{ role: "user", content: recitation() }];
    },
  };
}

/** `read_file` returning `chars` characters that name the file, so results are large and distinct. */
export const readFile = defineTool({
  name: "read_file",
  description: "Read a file.",
  parameters: z.object({ path: z.string(), chars: z.number().default(1200) }),
  readOnly: true,
  execute: ({ path, chars }) => `// ${path}\n${`export const value = "${path}";\n`.repeat(Math.ceil(chars / (path.length + 25)))}`.slice(0, chars),
});

/** Turns for `units` units of `steps` read_file calls each (start and finish included), then an answer. */
export function unitTurns(units: number, steps: number, chars = 1200): ScriptedTurn[] {
  const turns: ScriptedTurn[] = [];
  for (let u = 1; u <= units; u++) {
    const id = String(u);
    turns.push({ toolCalls: [{ name: "start_unit", arguments: { id } }, { name: "read_file", arguments: { path: `src/u${u}/f0.ts`, chars } }] });
    for (let s = 1; s < steps - 1; s++) turns.push({ toolCalls: [{ name: "read_file", arguments: { path: `src/u${u}/f${s}.ts`, chars } }] });
    turns.push({ toolCalls: [{ name: "finish_unit", arguments: { id, outcome: `unit ${u} works` } }] });
  }
  turns.push("All done.");
  return turns;
}

/** True when every tool message directly follows the assistant message that called it, and every call is answered. */
export function isValidToolSequence(messages: readonly Message[]): boolean {
  let waiting = new Set<string>();
  for (const message of messages) {
    if (message.role === "tool") {
      if (!waiting.delete(message.toolCallId)) return false;
      continue;
    }
    if (waiting.size > 0) return false;
    if (message.role === "assistant") waiting = new Set((message.toolCalls ?? []).map((call) => call.id));
  }
  return waiting.size === 0;
}
