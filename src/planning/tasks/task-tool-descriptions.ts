// What the model reads about the task board tools. Prompts are code: task-tool-descriptions.test.ts
// checks that each one still says what it must.

export const TASK_CREATE_DESCRIPTION = `Add a task to the shared task board. The new task starts as pending and gets the next id ("1", "2", …); several TaskCreate calls in one reply get their ids in the order of the calls.

Use the board when the work takes three or more distinct steps, when steps depend on one another, or when the user should be able to follow your progress. Create one task per step, before you start working, and add tasks as you discover new work.
Skip the board for a single quick action or a purely conversational answer: tracking it would only add noise.

- subject: a short imperative title, e.g. "Write the migration script".
- description: what done looks like and any context needed to do it.
- metadata: optional key/value notes kept with the task.
To order tasks, call TaskUpdate with add_blocked_by or add_blocks after creating them.`;

export const TASK_GET_DESCRIPTION = `Read everything about one task: subject, full description, status, owner, the tasks it waits on and the tasks waiting on it (with their status), metadata and creation time.
Call it before starting a task whose description you have not read yet, or to check whether its blockers are done.`;

export const TASK_LIST_DESCRIPTION = `Show the task board: a one-line count of tasks by status, then one line per task: id, status, subject, owner, and the blockers that are still open (blockers already completed are shown as done, so a task whose blockers are all done is free to start).
Use it to choose what to do next: prefer the lowest-numbered pending task with no open blockers and no other owner. Check it again after finishing a task to see what became free.
On a large board only open work fits; narrow with status, owner or ready (true: free to start), and limit (default 50 lines). The last line says how many tasks were left out.`;

export const TASK_UPDATE_DESCRIPTION = `Change one task: its status, owner, subject, description, metadata, or its dependencies.

Status flow:
- Set status "in_progress" right before you start a task, so others can see it is taken; work on one task at a time.
- Set "completed" only when the task is fully done: finished, checked, nothing left to fix. If tests fail, the work is partial, or you hit an error you could not resolve, keep it "in_progress". Put what the task produced in metadata.result, one short line: it stays as the task's outcome when older work is condensed.
- If you are blocked, leave the task "in_progress" and create a new task describing what has to be resolved first.
- Set "deleted" to remove a task that is no longer needed; it also disappears from every other task's dependencies.
- "pending" puts a task back in the queue. A completed task stays completed: for more work on it, create a new task.

Dependencies: add_blocked_by lists tasks that must be completed before this one; add_blocks lists tasks that must wait for this one. Both sides are updated together. A task cannot depend on itself, on an unknown id, or in a loop. Dependencies are advisory: you may start a blocked task, and the result will tell you which blockers are still open.

Other fields: owner names who works on the task (an empty string clears it); metadata is merged into the existing metadata, and a key set to null is removed.`;
