import { fetchUser as userById } from "./users.js";

const RATES = { gold: 0.2, silver: 0.1, basic: 0 };

export function invoiceTotal(invoice) {
  const rate = RATES[userById(invoice.userId).tier] ?? 0;
  return Math.round(invoice.amount * (1 - rate));
}
