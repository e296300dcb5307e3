import { loadUser } from "../users.js";

/** The tiers of the users who left, most frequent first. */
export function churnedTiers(userIds) {
  const counts = new Map();
  for (const id of userIds) {
    const tier = loadUser(id).tier;
    counts.set(tier, (counts.get(tier) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([tier]) => tier);
}
