// node check.mjs <workspace> <answer-file>: exit 0 when fetchUser is renamed loadUser everywhere and all still works.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const src = join(process.argv[2], "src");
const mentions = readdirSync(src, { recursive: true })
  .filter((f) => String(f).endsWith(".js"))
  .filter((f) => readFileSync(join(src, String(f)), "utf8").includes("fetchUser"));
assert.deepEqual(mentions, [], `these files still mention fetchUser: ${mentions.join(", ")}`);
const lib = await import(pathToFileURL(join(src, "index.js")).href);
assert.equal(typeof lib.loadUser, "function", "src/index.js must export loadUser");
assert.equal(lib.loadUser(2).name, "Brook", "loadUser(2) must find Brook");
assert.equal(lib.orderHeader({ id: 7, userId: 1 }), "Order 7 for Ada", "orderHeader broke");
assert.equal(lib.invoiceTotal({ userId: 3, amount: 1000 }), 900, "invoiceTotal broke");
assert.equal(lib.recipient(1), "ada@example.com", "recipient broke");
const mod = (path) => import(pathToFileURL(join(src, path)).href);
assert.deepEqual((await mod("reports/monthly.js")).monthlyLines([{ userId: 3, amount: 5 }]), ["Cai: 5"], "reports/monthly.js broke");
assert.deepEqual((await mod("reports/churn.js")).churnedTiers([1, 2, 2]), ["basic", "gold"], "reports/churn.js broke");
const { routes } = await mod("api/routes.js");
assert.deepEqual(routes["GET /users/:id/name"]({ id: "1" }), { status: 200, body: "Ada" }, "api/routes.js broke");
assert.deepEqual(routes["GET /users/:id/exists"]({ id: "9" }), { status: 404, body: false }, "api/routes.js broke");
assert.deepEqual((await mod("jobs/reminders.js")).reminders([{ id: 4, userId: 2, paid: false }, { id: 5, userId: 1, paid: true }]), [{ to: "brook@example.com", text: "Dear Brook, invoice 4 is due." }], "jobs/reminders.js broke");
assert.deepEqual((await mod("jobs/cleanup.js")).staleIds([1, 7, 3]), [7], "jobs/cleanup.js broke");
console.log("renamed everywhere");
