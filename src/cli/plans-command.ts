import { Plan } from "../planning/notebook/plan.js";
import type { PlanData } from "../planning/notebook/plan.js";
import { CliError } from "./cli-error.js";
import { openCliStores } from "./run-command.js";

type StoredPlan = { plan: PlanData; runId: string };

/** Every plan the notebook runs kept in the store, newest run first. */
async function storedPlans(database: string): Promise<StoredPlan[]> {
  const stores = await openCliStores({ database });
  try {
    const notebookRuns = (await stores.runs.listRuns(1000)).filter((run) => run.strategy === "notebook");
    const perRun = await Promise.all(
      notebookRuns.map(async (run) => (await stores.plans(run.id)).list().map((plan) => ({ plan, runId: run.id }))),
    );
    return perRun.flat();
  } finally {
    await stores.close();
  }
}

/** `stepwise plans list`: one line per plan. */
export async function plansList(database: string, out: NodeJS.WritableStream): Promise<void> {
  const plans = await storedPlans(database);
  if (plans.length === 0) {
    out.write("No plans yet. Run: stepwise run \"<task>\" --strategy notebook\n");
    return;
  }
  for (const { plan, runId } of plans) {
    const done = plan.subtasks.filter((s) => s.state === "done").length;
    out.write(`${plan.id}  ${plan.state.padEnd(11)} ${done}/${plan.subtasks.length}  ${plan.name}  (run ${runId.slice(0, 8)}, ${plan.createdAt})\n`);
  }
}

/** `stepwise plans show <id>`: the plan in its detailed markdown form. A unique id prefix is enough. */
export async function plansShow(database: string, id: string, out: NodeJS.WritableStream): Promise<void> {
  const matches = (await storedPlans(database)).filter(({ plan }) => plan.id.startsWith(id));
  const only = matches[0];
  if (!only) throw new CliError(`no plan with id "${id}"; list them with: stepwise plans list`);
  if (matches.length > 1) throw new CliError(`"${id}" matches ${matches.length} plans; give more of the id`);
  out.write(`${Plan.fromJSON(only.plan).toMarkdown(true)}\n`);
}
