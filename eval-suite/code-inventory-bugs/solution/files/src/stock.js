/** Units that can still be sold: on hand minus reserved, never below zero. */
export function available(item) {
  return Math.max(0, item.onHand - item.reserved);
}

export function reserve(item, units) {
  if (units > available(item)) throw new Error(`only ${available(item)} units of ${item.name} left`);
  return { ...item, reserved: item.reserved + units };
}
