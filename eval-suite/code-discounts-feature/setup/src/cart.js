import { priceOf } from "./catalog.js";

export class Cart {
  constructor() {
    this.lines = new Map();
  }

  add(sku, units = 1) {
    priceOf(sku);
    this.lines.set(sku, (this.lines.get(sku) ?? 0) + units);
    return this;
  }

  totalCents() {
    let total = 0;
    for (const [sku, units] of this.lines) total += priceOf(sku) * units;
    return total;
  }
}
