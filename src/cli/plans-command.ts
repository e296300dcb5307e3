import { Plan } from "../planning/notebook/plan.js";
import type { PlanData } from "../planning/notebook/plan.js";
import { planChecklist } from "../runs/checklist.js";
import { checklistLines } from "./checklist-text.js";
import { CliError } from "./cli-error.js";
import { openCliStores } from "./run-command.js";
import type { ScopedPlanQuery, StoredPlans } from "../runs/store-set.js";

export type PlansOptions = { database: string; store?: string };

/** The stored plans `query` picks, read through the run layer from the store `--store` names. */
async function storedPlans(opts: PlansOptions, query: ScopedPlanQuery): Promise<StoredPlans> {
  const stores = await openCliStores({ ...opts, mustExist: true });
  try {
    return await stores.listPlans(query);
  } finally {
    await stores.close();
  }
}

/** How many plans `plans list` shows when not told: one screen, however many the store keeps. */
export const PLANS_LISTED = 50;

/** `stepwise plans list`: one line per plan, the first `limit`, saying how many were left out. */
export async function plansList(opts: PlansOptions & { limit?: number }, out: NodeJS.WritableStream): Promise<void> {
  const limit = opts.limit ?? PLANS_LISTED;
  const { plans, total } = await storedPlans(opts, { limit });
  if (total === 0) {
    out.write("No plans yet: the store is empty. Run: stepwise run \"<task>\" --strategy notebook\n");
    return;
  }
  for (const { plan, origin } of plans) {
    const done = plan.subtasks.filter((s) => s.state === "done").length;
    out.write(`${plan.id}  ${plan.state.padEnd(11)} ${done}/${plan.subtasks.length}  ${plan.name}  (${origin}, ${plan.createdAt})\n`);
  }
  if (total > plans.length) out.write(`… ${total - plans.length} more of ${total} plans not shown; pass --limit to see more.\n`);
}

/** `stepwise plans show <id>`: the plan in its detailed markdown form. A unique id prefix is enough. */
export async function plansShow(opts: PlansOptions, id: string, out: NodeJS.WritableStream): Promise<void> {
  // Two are enough to tell a unique prefix from an ambiguous one; the total says how many it matches.
  const { plans, total } = await storedPlans(opts, { limit: 2, idPrefix: id });
  const only = plans[0];
  if (!only) throw new CliError(`no plan with id "${id}"; list them with: stepwise plans list`);
  if (total > 1) throw new CliError(`"${id}" matches ${total} plans; give more of the id`);
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
