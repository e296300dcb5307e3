/** A unit of planned work, named by the plugin that owns it (`kind`) and an id unique within that kind. */
export type WorkUnit = { kind: string; id: string; title: string };

declare module "../core/events.js" {
  interface AgentEventMap {
    /**
     * A unit of planned work (a plan subtask, a board task, a todo item) started or ended. Planning
     * plugins announce them; context folding uses them as the natural boundaries of the history.
     */
    "unit-start": { unit: WorkUnit };
    "unit-end": { unit: WorkUnit; outcome: string };
  }
}
