import { loadUser } from "../users.js";

/** One line per order: the customer's name and the amount. */
export function monthlyLines(orders) {
  return orders.map((order) => `${loadUser(order.userId).name}: ${order.amount}`);
}
