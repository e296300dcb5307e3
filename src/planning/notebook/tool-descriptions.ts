// What the model reads about the eight plan tools and their arguments.

export const TOOL_DESCRIPTIONS = {
  create_plan:
    "Create a plan for a complex request: a name, a description, the expected outcome and an ordered list of " +
    "subtasks. If a plan is already current, it is archived as abandoned and the new one replaces it.",
  view_subtasks:
    "Show the full details of the subtasks at the given indices: description, expected outcome, state and, " +
    "for finished ones, their outcome.",
  update_subtask_state:
    "Set a subtask's state to 'todo', 'in_progress' or 'abandoned'. Only one subtask can be in progress, and " +
    "only once every earlier subtask is done or abandoned. To mark a subtask done, call 'finish_subtask' instead.",
  finish_subtask:
    "Mark a subtask done and record its concrete outcome. Every earlier subtask must be done or abandoned. " +
    "The next todo subtask then becomes in progress.",
  revise_current_plan:
    "Change the current plan's subtasks. action='add' inserts the subtask before subtask_idx (use the number " +
    "of subtasks to append), never before the subtask in progress; action='revise' changes the name, description or expected outcome of the subtask " +
    "at subtask_idx and keeps its state and outcome; action='delete' removes it.",
  finish_plan:
    "Finish the current plan as 'done' (every subtask done or abandoned) or 'abandoned', with its outcome. The " +
    "plan is archived and can be listed with 'view_historical_plans'.",
  view_historical_plans: "List archived plans: id, name, creation time, description and state; the newest 20 unless you pass a limit or a state.",
  recover_historical_plan:
    "Make an archived plan current again, by its id from 'view_historical_plans'. The plan that was current " +
    "is archived (as abandoned if it was unfinished).",
} as const;

export const ARGUMENT_DESCRIPTIONS = {
  planName: "A short name for the plan, at most ten words.",
  planDescription: "What the plan is for, with its constraints and scope.",
  planExpectedOutcome: "The concrete result the whole plan should deliver.",
  subtasks: "The subtasks, in the order they are to be done.",
  subtaskName: "A short name for the subtask, at most ten words.",
  subtaskDescription: "What to do in this subtask, with its constraints and goal.",
  subtaskExpectedOutcome: "A concrete, checkable result of this subtask.",
  subtaskIdx: "The 0-based index of the subtask.",
  subtaskIndices: "The 0-based indices of the subtasks to show.",
  subtaskState: "The new state: 'todo', 'in_progress' or 'abandoned'.",
  subtaskOutcome:
    "The concrete outcome the subtask produced: the data, findings or file paths themselves, not a " +
    "description of what you did.",
  action: "'add' inserts before subtask_idx, 'revise' changes the subtask at subtask_idx, 'delete' removes it.",
  revision: "The subtask to add, or the fields to change when revising. Not needed to delete.",
  planState: "'done' when the plan's goal is reached, 'abandoned' when it is given up.",
  planOutcome: "The concrete outcome of the plan, or why it was abandoned.",
  planId: "The id of an archived plan, as listed by 'view_historical_plans'.",
  historyState: "Only plans that ended this way.",
  historyLimit: "How many of the newest plans to list (default 20).",
} as const;

/** The error for asking update_subtask_state to set 'done'. */
export const DONE_NEEDS_FINISH_SUBTASK =
  "A subtask becomes 'done' only through 'finish_subtask', which records its outcome. Call 'finish_subtask' " +
  "with subtask_idx and subtask_outcome instead.";

/** Added to create_plan's description when the notebook has plan approval on. */
export const CREATE_PLAN_APPROVAL_NOTE =
  "The user reviews every new plan before it is created: they may approve it, edit it (the result then " +
  "says what they changed) or reject it with feedback, which you should address in a new plan.";
