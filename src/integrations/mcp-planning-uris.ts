/** The resource URIs of Stepwise's plans and boards over MCP. */
export const CURRENT_PLAN_URI = "stepwise://plan/current";
export const PLAN_TEMPLATE = "stepwise://plans/{id}";
export const BOARD_TEMPLATE = "stepwise://boards/{board}";
export const TASK_TEMPLATE = "stepwise://boards/{board}/tasks/{id}";

export function planUri(id: string): string {
  return `stepwise://plans/${encodeURIComponent(id)}`;
}

export function boardUri(board: string): string {
  return `stepwise://boards/${encodeURIComponent(board)}`;
}

export function taskUri(board: string, id: string): string {
  return `${boardUri(board)}/tasks/${encodeURIComponent(id)}`;
}
