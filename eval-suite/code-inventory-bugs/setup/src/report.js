import { available } from "./stock.js";

/** Names of the items whose available units are below the threshold. */
export function lowStock(items, threshold) {
  return items.filter((item) => available(item) <= threshold).map((item) => item.name);
}
