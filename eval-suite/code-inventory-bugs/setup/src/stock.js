/** Units that can still be sold: on hand minus reserved. */
export function available(item) {
  return item.onHand - item.reserved;
}

export function reserve(item, units) {
  if (units > available(item)) throw new Error(`only ${available(item)} units of ${item.name} left`);
  return { ...item, reserved: item.reserved + units };
}
