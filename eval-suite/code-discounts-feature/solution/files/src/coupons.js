const COUPONS = {
  SAVE10: (total) => Math.round(total * 0.9),
  FLAT500: (total) => Math.max(0, total - 500),
};

/** The total after a coupon; an unknown code throws. */
export function applyCoupon(totalCents, code) {
  const coupon = COUPONS[String(code).toUpperCase()];
  if (!coupon) throw new Error(`unknown coupon: ${code}`);
  return coupon(totalCents);
}
