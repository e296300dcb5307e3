import { priceOf } from "./catalog.js";
import { applyCoupon } from "./coupons.js";

export class Cart {
  constructor() {
    this.lines = new Map();
    this.coupon = undefined;
  }

  add(sku, units = 1) {
    priceOf(sku);
    this.lines.set(sku, (this.lines.get(sku) ?? 0) + units);
    return this;
  }

  useCoupon(code) {
    applyCoupon(0, code);
    this.coupon = code;
    return this;
  }

  totalCents() {
    let total = 0;
    for (const [sku, units] of this.lines) total += priceOf(sku) * units;
    return this.coupon === undefined ? total : applyCoupon(total, this.coupon);
  }
}
