import * as users from "../users.js";

const lookup = users.loadUser;

/** The ids that no longer name a user. */
export function staleIds(ids) {
  return ids.filter((id) => {
    try {
      lookup(id);
      return false;
    } catch {
      return true;
    }
  });
}
