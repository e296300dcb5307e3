// node check.mjs <workspace> <answer-file>: exit 0 when the coupon feature works as FEATURE.md says.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const ws = process.argv[2];
const lib = await import(pathToFileURL(join(ws, "src", "index.js")).href);
assert.equal(typeof lib.applyCoupon, "function", "src/index.js does not export applyCoupon");
assert.equal(typeof lib.Cart, "function", "src/index.js lost Cart");
assert.equal(lib.applyCoupon(1005, "SAVE10"), 905, "SAVE10 must take 10% off, rounded to the cent");
assert.equal(lib.applyCoupon(1000, "save10"), 900, "codes must be case-insensitive");
assert.equal(lib.applyCoupon(300, "FLAT500"), 0, "FLAT500 must not go below zero");
assert.equal(lib.applyCoupon(2000, "FLAT500"), 1500, "FLAT500 must take 500 cents off");
assert.throws(() => lib.applyCoupon(100, "FREE"), { message: "unknown coupon: FREE" }, "an unknown code must throw 'unknown coupon: <CODE>'");
const cart = new lib.Cart().add("pen", 2).add("ink");
assert.equal(cart.totalCents(), 1299, "the cart's total without a coupon changed");
assert.throws(() => cart.useCoupon("NOPE"), "useCoupon must refuse an unknown code at once");
assert.equal(cart.totalCents(), 1299, "a refused coupon must not stay on the cart");
cart.useCoupon("SAVE10");
assert.equal(cart.totalCents(), 1169, "totalCents() must apply the coupon");
console.log("coupons work");
