import { Plan } from "../planning/notebook/plan.js";
import type { PlanData } from "../planning/notebook/plan.js";
import { openSqliteDatabase } from "../stores/sqlite-database.js";
import { SqlitePlanStorage } from "../stores/sqlite-plan-storage.js";
import { SqliteRunLog } from "../stores/sqlite-run-log.js";
import { CliError } from "./cli-error.js";

type StoredPlan = { plan: PlanData; runId: string };

/** Every plan the notebook runs kept in the store, newest run first. */
function storedPlans(database: string): StoredPlan[] {
  const db = openSqliteDatabase(database);
  const log = new SqliteRunLog(db);
  try {
    return log
      .listRuns(1000)
      .filter((run) => run.strategy === "notebook")
      .flatMap((run) => new SqlitePlanStorage(db, { scope: run.id }).list().map((plan) => ({ plan, runId: run.id })));
  } finally {
    db.close();
  }
}

/** `stepwise plans list`: one line per plan. */
export function plansList(database: string, out: NodeJS.WritableStream): void {
  const plans = storedPlans(database);
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
export function plansShow(database: string, id: string, out: NodeJS.WritableStream): void {
  const matches = storedPlans(database).filter(({ plan }) => plan.id.startsWith(id));
  const only = matches[0];
  if (!only) throw new CliError(`no plan with id "${id}"; list them with: stepwise plans list`);
  if (matches.length > 1) throw new CliError(`"${id}" matches ${matches.length} plans; give more of the id`);
  out.write(`${Plan.fromJSON(only.plan).toMarkdown(true)}\n`);
}
