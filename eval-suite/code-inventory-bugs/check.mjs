// node check.mjs <workspace> <answer-file>: exit 0 when the five issues are fixed.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const ws = process.argv[2];
const load = (file) => import(pathToFileURL(join(ws, "src", file)).href);
const { available, reserve } = await load("stock.js");
const { lineTotal } = await load("pricing.js");
const { lowStock } = await load("report.js");
const { restockPlan } = await load("restock.js");
const { formatCents } = await load("format.js");

assert.equal(available({ name: "a", onHand: 3, reserved: 5 }), 0, "issue 1: available() went below zero");
assert.equal(available({ name: "a", onHand: 7, reserved: 2 }), 5, "available() no longer subtracts reserved units");
assert.throws(() => reserve({ name: "a", onHand: 1, reserved: 0 }, 2), "reserve() stopped refusing too many units");
assert.equal(lineTotal(10, 1000), 9000, "issue 2: 10 units get no bulk discount");
assert.equal(lineTotal(9, 1000), 9000, "9 units must pay full price");
assert.equal(lineTotal(12, 333), 3596, "the discount must round to whole cents");
const items = [
  { name: "pear", onHand: 5, reserved: 0 },
  { name: "apple", onHand: 2, reserved: 0 },
  { name: "fig", onHand: 3, reserved: 9 },
  { name: "kiwi", onHand: 4, reserved: 0 },
];
assert.deepEqual(lowStock(items, 4), ["apple", "fig"], "issue 3: lowStock() must be strictly below the threshold and sorted");
assert.deepEqual(
  restockPlan([{ name: "pear", onHand: 5, reserved: 3 }, { name: "fig", onHand: 9, reserved: 0 }], 6),
  [{ name: "pear", units: 4 }],
  "issue 4: restockPlan() must order up to the target from the available count",
);
assert.equal(formatCents(5), "$0.05", "issue 5: formatCents(5) must be $0.05");
assert.equal(formatCents(1230), "$12.30", "issue 5: formatCents(1230) must be $12.30");
assert.equal(formatCents(-310), "-$3.10", "issue 5: negative amounts take a leading minus");
console.log("all five issues fixed");
