import { boundedQuote } from "../core/bounded-quote.js";
import { RunNotFoundError, type RunRecord } from "../stores/run-store.js";
import { RunInputError } from "./run-input-error.js";
import type { StoreSet } from "./store-set.js";

/** Candidates an ambiguous prefix error lists. */
const CANDIDATES_SHOWN = 5;

/** A run id prefix that more than one run starts with; `candidates` are the newest of them. */
export class RunIdAmbiguousError extends RunInputError {
  override name = "RunIdAmbiguousError";
  constructor(
    readonly prefix: string,
    readonly total: number,
    readonly candidates: readonly RunRecord[],
    where: string,
  ) {
    const shown = candidates.map((run) => `${run.id} (${run.strategy}, ${run.status}, ${boundedQuote(run.task, 40)})`).join("; ");
    const more = total > candidates.length ? `; and ${total - candidates.length} more` : "";
    super(`${boundedQuote(prefix)} is the start of ${total} run ids in ${where}: ${shown}${more}. Give more of the id`);
  }
}

/**
 * The run a person means by `idOrPrefix`: the run with that id, or the only one whose id starts with
 * it (`8eb9c3e5`, as `stepwise plans list` names runs). The prefix is taken literally. Throws
 * `RunNotFoundError` or `RunIdAmbiguousError`, each naming the store it looked in.
 */
export async function findRun(stores: StoreSet, idOrPrefix: string): Promise<RunRecord> {
  const where = `the store ${stores.location}`;
  if (idOrPrefix.trim() === "") throw new RunInputError(`a run id is needed; list the runs in ${where} with: stepwise runs list`);
  const exact = await stores.runs.getRun(idOrPrefix);
  if (exact) return exact;
  const { runs, total } = await stores.runs.findRuns({ idPrefix: idOrPrefix, limit: CANDIDATES_SHOWN });
  const [only] = runs;
  if (!only) throw new RunNotFoundError(idOrPrefix, where);
  if (total > 1) throw new RunIdAmbiguousError(idOrPrefix, total, runs, where);
  return only;
}
