export { Cart } from "./cart.js";
export { priceOf, PRICES } from "./catalog.js";
export { applyCoupon } from "./coupons.js";
