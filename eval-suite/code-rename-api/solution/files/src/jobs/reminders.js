import { loadUser } from "../users.js";
import { recipient } from "../notify.js";

/** Reminder e-mails for unpaid invoices: address and greeting. */
export function reminders(invoices) {
  return invoices.filter((i) => !i.paid).map((i) => ({ to: recipient(i.userId), text: `Dear ${loadUser(i.userId).name}, invoice ${i.id} is due.` }));
}
