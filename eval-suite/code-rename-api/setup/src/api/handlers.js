import { fetchUser } from "../users.js";

export const handlers = {
  // GET /users/:id, answered through fetchUser.
  getUser: (params) => ({ status: 200, body: fetchUser(Number(params.id)) }),
  getUserName: (params) => ({ status: 200, body: fetchUser(Number(params.id)).name }),
};
