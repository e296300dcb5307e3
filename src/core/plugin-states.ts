import type { Plugin } from "./plugin.js";

/** The plugins' saved states, each under its plugin's name (as `AgentState.plugins` keeps them). */
export type PluginStates = Record<string, unknown>;

/** Each plugin's `saveState()`, under its name; plugins that keep nothing are left out. */
export function savePluginStates(plugins: readonly Plugin[]): PluginStates {
  const states: PluginStates = {};
  for (const plugin of plugins) {
    if (plugin.saveState) states[plugin.name] = plugin.saveState();
  }
  return structuredClone(states);
}

/** Gives each plugin (a copy of) the state saved under its name; a plugin with none keeps its own. */
export function loadPluginStates(plugins: readonly Plugin[], states: PluginStates): void {
  for (const plugin of plugins) {
    if (plugin.name in states) plugin.loadState?.(structuredClone(states[plugin.name]));
  }
}
