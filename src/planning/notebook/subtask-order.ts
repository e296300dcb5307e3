import type { Plan } from "./plan.js";

/**
 * Puts a plan that becomes the current one in the order the notebook's tools keep: at most one
 * subtask in progress, with every subtask before it done or abandoned, and the plan itself open
 * (todo, or in progress once a subtask left todo). Changes the plan in place and returns it.
 *
 * A subtask in progress that breaks the order (an open subtask before it, or another in progress
 * before it) goes back to todo. Such plans are put in order rather than refused because they come
 * from where nobody can be asked again: a run's saved state, a storage another version or process
 * wrote, a plan built in code. Refusing would lose the run; going back to todo loses only the mark
 * (every outcome stays), and the hint then recommends starting the first open subtask, which the
 * notebook accepts, instead of finishing one it would refuse to finish.
 */
export function putSubtasksInOrder(plan: Plan): Plan {
  let open = false;
  for (const subtask of plan.subtasks) {
    if (subtask.state === "in_progress" && open) subtask.state = "todo";
    if (subtask.state === "todo" || subtask.state === "in_progress") open = true;
  }
  if (plan.state === "done" || plan.state === "abandoned") {
    plan.state = plan.subtasks.every((s) => s.state === "todo") ? "todo" : "in_progress";
    plan.outcome = null;
    plan.finishedAt = null;
  }
  return plan;
}
