import { available } from "./stock.js";

/** Names of the items whose available units are strictly below the threshold, sorted. */
export function lowStock(items, threshold) {
  return items
    .filter((item) => available(item) < threshold)
    .map((item) => item.name)
    .sort((a, b) => a.localeCompare(b));
}
