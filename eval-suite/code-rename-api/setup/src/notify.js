import * as users from "./users.js";

// Looks the address up with users.fetchUser at send time, so a changed email is used.
export function recipient(userId) {
  return users.fetchUser(userId).email;
}
