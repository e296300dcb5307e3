import { findRun } from "../runs/find-run.js";
import type { StoreSet } from "../runs/store-set.js";
import { RunNotFoundError, type RunRecord } from "../stores/run-store.js";
import { CliError } from "./cli-error.js";

/** The run a command line names by its id or a unique prefix of it; an error says where it looked and how to list. */
export async function namedRun(stores: StoreSet, idOrPrefix: string): Promise<RunRecord> {
  try {
    return await findRun(stores, idOrPrefix);
  } catch (error) {
    if (error instanceof RunNotFoundError) throw new CliError(`${error.message}; list them with: stepwise runs list`);
    throw error;
  }
}
