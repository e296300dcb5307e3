export { fetchUser } from "./users.js";
export { orderHeader } from "./orders.js";
export { invoiceTotal } from "./invoices.js";
export { recipient } from "./notify.js";
