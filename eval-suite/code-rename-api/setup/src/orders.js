import { fetchUser } from "./users.js";

export function orderHeader(order) {
  const user = fetchUser(order.userId);
  return `Order ${order.id} for ${user.name}`;
}
