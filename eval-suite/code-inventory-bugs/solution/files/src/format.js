/** An amount in cents as dollars with two decimals, e.g. 1230 -> "$12.30", -310 -> "-$3.10". */
export function formatCents(cents) {
  const sign = cents < 0 ? "-" : "";
  return `${sign}$${(Math.abs(cents) / 100).toFixed(2)}`;
}
