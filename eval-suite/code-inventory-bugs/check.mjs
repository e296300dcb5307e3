// node check.mjs <workspace> <answer-file>: exit 0 when the three issues are fixed.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const ws = process.argv[2];
const load = (file) => import(pathToFileURL(join(ws, "src", file)).href);
const { available, reserve } = await load("stock.js");
const { lineTotal } = await load("pricing.js");
const { lowStock } = await load("report.js");

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
console.log("all three issues fixed");
