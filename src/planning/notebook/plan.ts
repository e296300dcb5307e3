import { planToMarkdown, subtaskToMarkdown } from "./plan-markdown.js";

export const PLAN_STATES = ["todo", "in_progress", "done", "abandoned"] as const;
export type PlanState = (typeof PLAN_STATES)[number];

/** The states `update_subtask_state` may set; a subtask becomes done only through `finish_subtask`. */
export const SETTABLE_SUBTASK_STATES = ["todo", "in_progress", "abandoned"] as const;
export type SettableSubTaskState = (typeof SETTABLE_SUBTASK_STATES)[number];

/** A subtask as plain JSON (what storages and saved states hold). */
export type SubTaskData = {
  /**
   * Stays the same while subtasks are added, revised or deleted around it (its index does not), so
   * the work done for it can be told apart from the work of the subtask that later takes its index.
   * Plans saved before ids existed have none; their subtasks get one when loaded.
   */
  id?: string;
  name: string;
  description: string;
  expectedOutcome: string;
  state: PlanState;
  outcome: string | null;
  createdAt: string;
  finishedAt: string | null;
};

/** A plan as plain JSON (what storages and saved states hold). */
export type PlanData = {
  id: string;
  name: string;
  description: string;
  expectedOutcome: string;
  state: PlanState;
  outcome: string | null;
  createdAt: string;
  finishedAt: string | null;
  subtasks: SubTaskData[];
};

/** What a caller must give to describe a subtask; the rest starts as a fresh todo. */
export type SubTaskInput = Pick<SubTaskData, "name" | "description" | "expectedOutcome"> & Partial<SubTaskData>;

/** What a caller must give to describe a plan; the rest starts as a fresh todo. */
export type PlanInput = Pick<PlanData, "name" | "description" | "expectedOutcome"> &
  Partial<Omit<PlanData, "subtasks">> & { subtasks: (SubTask | SubTaskInput)[] };

/** Timestamps are ISO-8601 UTC strings: sortable, unambiguous and JSON-safe. */
export function timestamp(date: Date = new Date()): string {
  return date.toISOString();
}

/** Short, since it reaches the model in folded-work notes; unique enough within one agent's plans. */
export function newSubTaskId(): string {
  return crypto.randomUUID().slice(0, 8);
}

/** One step of a plan. Build one in code with `new SubTask({ name, description, expectedOutcome })`. */
export class SubTask implements SubTaskData {
  id: string;
  name: string;
  description: string;
  expectedOutcome: string;
  state: PlanState;
  outcome: string | null;
  createdAt: string;
  finishedAt: string | null;

  constructor(input: SubTaskInput) {
    this.id = input.id ?? newSubTaskId();
    this.name = input.name;
    this.description = input.description;
    this.expectedOutcome = input.expectedOutcome;
    this.state = input.state ?? "todo";
    this.outcome = input.outcome ?? null;
    this.createdAt = input.createdAt ?? timestamp();
    this.finishedAt = input.finishedAt ?? null;
  }

  toMarkdown(detailed = false): string {
    return subtaskToMarkdown(this, detailed);
  }

  toJSON(): SubTaskData {
    return {
      id: this.id,
      name: this.name,
      description: this.description,
      expectedOutcome: this.expectedOutcome,
      state: this.state,
      outcome: this.outcome,
      createdAt: this.createdAt,
      finishedAt: this.finishedAt,
    };
  }
}

/**
 * An ordered list of subtasks towards one expected outcome. Build one in code with
 * `new Plan({ name, description, expectedOutcome, subtasks: [new SubTask({...}), …] })` and hand it
 * to `PlanNotebook.createPlan`, or let the model create one with the `create_plan` tool.
 */
export class Plan implements PlanData {
  id: string;
  name: string;
  description: string;
  expectedOutcome: string;
  state: PlanState;
  outcome: string | null;
  createdAt: string;
  finishedAt: string | null;
  subtasks: SubTask[];

  constructor(input: PlanInput) {
    this.id = input.id ?? crypto.randomUUID();
    this.name = input.name;
    this.description = input.description;
    this.expectedOutcome = input.expectedOutcome;
    this.state = input.state ?? "todo";
    this.outcome = input.outcome ?? null;
    this.createdAt = input.createdAt ?? timestamp();
    this.finishedAt = input.finishedAt ?? null;
    this.subtasks = input.subtasks.map((subtask) => new SubTask(subtask));
  }

  static fromJSON(data: PlanData): Plan {
    return new Plan(data);
  }

  toMarkdown(detailed = false): string {
    return planToMarkdown(this, detailed);
  }

  toJSON(): PlanData {
    return {
      id: this.id,
      name: this.name,
      description: this.description,
      expectedOutcome: this.expectedOutcome,
      state: this.state,
      outcome: this.outcome,
      createdAt: this.createdAt,
      finishedAt: this.finishedAt,
      subtasks: this.subtasks.map((subtask) => subtask.toJSON()),
    };
  }

  /** A deep copy: what hooks and events receive, so later changes never alter what they saw. */
  clone(): Plan {
    return Plan.fromJSON(this.toJSON());
  }
}
