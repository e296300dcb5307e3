import { loadUser } from "../users.js";

export const handlers = {
  // GET /users/:id, answered through loadUser.
  getUser: (params) => ({ status: 200, body: loadUser(Number(params.id)) }),
  getUserName: (params) => ({ status: 200, body: loadUser(Number(params.id)).name }),
};
