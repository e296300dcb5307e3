import { loadUser } from "./users.js";

export function orderHeader(order) {
  const user = loadUser(order.userId);
  return `Order ${order.id} for ${user.name}`;
}
