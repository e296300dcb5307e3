/**
 * For a worker process: a signal that aborts on the first SIGTERM or SIGINT (`onSignal` is told which),
 * so the worker stops taking runs and hands back those it drives after their current step. The
 * handlers are then gone: a second signal ends the process at once, as SIGKILL does, and the runs'
 * leases are left to run out. `dispose` removes the handlers when the worker ended by itself.
 */
export function shutdownSignal(onSignal?: (name: NodeJS.Signals) => void): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const names: NodeJS.Signals[] = ["SIGTERM", "SIGINT"];
  const dispose = () => {
    for (const name of names) process.off(name, stop);
  };
  function stop(name: NodeJS.Signals) {
    dispose();
    onSignal?.(name);
    controller.abort();
  }
  for (const name of names) process.on(name, stop);
  return { signal: controller.signal, dispose };
}
