export const BULK_UNITS = 10;

/** Price of a line in cents, with the bulk discount from BULK_UNITS units upwards. */
export function lineTotal(units, unitCents) {
  const gross = units * unitCents;
  return units >= BULK_UNITS ? Math.round(gross * 0.9) : gross;
}
