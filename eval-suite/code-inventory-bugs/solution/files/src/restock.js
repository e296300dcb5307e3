import { available } from "./stock.js";

/** What to order so that every item has `target` units available: [{ name, units }]. */
export function restockPlan(items, target) {
  return items.filter((item) => available(item) < target).map((item) => ({ name: item.name, units: target - available(item) }));
}
