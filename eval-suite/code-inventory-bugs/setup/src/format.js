/** An amount in cents as dollars, e.g. 1230 -> "$12.30". */
export function formatCents(cents) {
  return `$${cents / 100}`;
}
