const USERS = new Map([
  [1, { id: 1, name: "Ada", email: "ada@example.com", tier: "gold" }],
  [2, { id: 2, name: "Brook", email: "brook@example.com", tier: "basic" }],
  [3, { id: 3, name: "Cai", email: "cai@example.com", tier: "silver" }],
]);

/** fetchUser: the user with this id, or throws. */
export function fetchUser(id) {
  const user = USERS.get(id);
  if (!user) throw new Error(`no user ${id}`);
  return user;
}
