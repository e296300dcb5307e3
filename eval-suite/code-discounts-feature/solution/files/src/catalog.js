export const PRICES = { pen: 150, pad: 420, ink: 999, clip: 25 };

export function priceOf(sku) {
  const price = PRICES[sku];
  if (price === undefined) throw new Error(`unknown product: ${sku}`);
  return price;
}
