import { Plan } from "../planning/notebook/plan.js";
import type { PlanData } from "../planning/notebook/plan.js";
import { openSqliteDatabase } from "../stores/sqlite-database.js";
import { SqlitePlanStorage, sqlitePlanScopes } from "../stores/sqlite-plan-storage.js";
import { SqliteRunStore } from "../stores/sqlite-run-store.js";
import { planChecklist } from "../runs/checklist.js";
import { checklistLines } from "./checklist-text.js";
import { CliError } from "./cli-error.js";

/** A plan, and where it was made: a run (`run 1a2b3c4d`) or another notebook, such as `stepwise mcp`'s (`mcp:<board>`). */
type StoredPlan = { plan: PlanData; origin: string };

/** Every plan kept in the store, whoever made it, the notebook with the latest new plan first. */
async function storedPlans(database: string): Promise<StoredPlan[]> {
  const db = openSqliteDatabase(database);
  try {
    const runs = new SqliteRunStore(db);
    const plans: StoredPlan[] = [];
    for (const scope of sqlitePlanScopes(db)) {
      const origin = (await runs.getRun(scope)) ? `run ${scope.slice(0, 8)}` : scope;
      plans.push(...new SqlitePlanStorage(db, { scope }).list().map((plan) => ({ plan, origin })));
    }
    return plans;
  } finally {
    db.close();
  }
}

/** How many plans `plans list` shows when not told: one screen, however many the store keeps. */
export const PLANS_LISTED = 50;

/** `stepwise plans list`: one line per plan, the first `limit`, saying how many were left out. */
export async function plansList(database: string, out: NodeJS.WritableStream, limit = PLANS_LISTED): Promise<void> {
  const plans = await storedPlans(database);
  if (plans.length === 0) {
    out.write("No plans yet: the store is empty. Run: stepwise run \"<task>\" --strategy notebook\n");
    return;
  }
  for (const { plan, origin } of plans.slice(0, limit)) {
    const done = plan.subtasks.filter((s) => s.state === "done").length;
    out.write(`${plan.id}  ${plan.state.padEnd(11)} ${done}/${plan.subtasks.length}  ${plan.name}  (${origin}, ${plan.createdAt})\n`);
  }
  if (plans.length > limit) out.write(`… ${plans.length - limit} more of ${plans.length} plans not shown; pass --limit to see more.\n`);
}

/** `stepwise plans show <id>`: the plan in its detailed markdown form. A unique id prefix is enough. */
export async function plansShow(database: string, id: string, out: NodeJS.WritableStream): Promise<void> {
  const matches = (await storedPlans(database)).filter(({ plan }) => plan.id.startsWith(id));
  const only = matches[0];
  if (!only) throw new CliError(`no plan with id "${id}"; list them with: stepwise plans list`);
  if (matches.length > 1) throw new CliError(`"${id}" matches ${matches.length} plans; give more of the id`);
  out.write(`${planDetailText(only.plan).join("\n")}\n`);
}

/**
 * A plan for a person to read: the checklist's marks and 1-based numbers, as the run view shows it,
 * with each subtask's details below its line. (The model reads the plan as markdown instead.)
 */
function planDetailText(plan: PlanData): string[] {
  const checklist = planChecklist(Plan.fromJSON(plan));
  const field = (indent: string, name: string, value: string | null) => (value ? [`${indent}${name}: ${value}`] : []);
  const lines = [
    `# ${plan.name}`,
    ...field("", "Description", plan.description),
    ...field("", "Expected outcome", plan.expectedOutcome),
    `State: ${plan.state}; created ${plan.createdAt}${plan.finishedAt ? `, finished ${plan.finishedAt}` : ""}`,
    ...field("", "Outcome", plan.outcome),
    "",
  ];
  const [title = "", ...items] = checklistLines({ ...(checklist ?? { kind: "plan", items: [] }), title: "Subtasks" });
  lines.push(title);
  plan.subtasks.forEach((subtask, i) => {
    lines.push(items[i] ?? "");
    lines.push(...field("       ", "Description", subtask.description), ...field("       ", "Expected outcome", subtask.expectedOutcome));
    lines.push(...field("       ", "Outcome", subtask.outcome));
  });
  return lines;
}
