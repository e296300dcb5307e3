import { boundedQuote } from "../core/bounded-quote.js";
import { STRATEGIES } from "../runs/strategies.js";
import { RUN_STATUSES, runStatusOf, type RunRecord, type RunStatus } from "../stores/run-store.js";

/** Which runs `GET /api/runs` lists: each given part must hold; a list (comma-separated) matches any of its values. */
export type RunFilter = { status?: RunStatus[]; strategy?: string[]; model?: string[]; text?: string };

export class RunFilterError extends Error {}

/** Reads `status`, `strategy`, `model` and `q` from a query string; an unknown status or strategy is refused, naming those accepted. */
export function parseRunFilter(query: URLSearchParams): RunFilter {
  const filter: RunFilter = {};
  // A link made before a status was renamed (status=finished) still picks its runs.
  const status = listParam(query, "status")?.map(runStatusOf);
  if (status) {
    const unknown = status.find((value) => !(RUN_STATUSES as readonly string[]).includes(value));
    if (unknown !== undefined) throw new RunFilterError(`unknown status ${boundedQuote(unknown)}; use one or more of ${RUN_STATUSES.join(", ")}`);
    filter.status = status as RunStatus[];
  }
  const strategy = listParam(query, "strategy");
  if (strategy) {
    const unknown = strategy.find((value) => !(STRATEGIES as readonly string[]).includes(value));
    if (unknown !== undefined) throw new RunFilterError(`unknown strategy ${boundedQuote(unknown)}; use one or more of ${STRATEGIES.join(", ")}`);
    filter.strategy = strategy;
  }
  const model = listParam(query, "model");
  if (model) filter.model = model;
  const text = query.get("q")?.trim();
  if (text) filter.text = text.toLowerCase();
  return filter;
}

export function matchesRunFilter(run: RunRecord, filter: RunFilter): boolean {
  if (filter.status && !filter.status.includes(run.status)) return false;
  if (filter.strategy && !filter.strategy.includes(run.strategy)) return false;
  if (filter.model && !filter.model.includes(run.model)) return false;
  if (filter.text && !run.task.toLowerCase().includes(filter.text) && !run.id.toLowerCase().startsWith(filter.text)) return false;
  return true;
}

function listParam(query: URLSearchParams, name: string): string[] | undefined {
  const values = query
    .getAll(name)
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter((value) => value.length > 0);
  return values.length > 0 ? values : undefined;
}
