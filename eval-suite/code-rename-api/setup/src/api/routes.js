import { handlers } from "./handlers.js";
import { fetchUser } from "../index.js";

export const routes = {
  "GET /users/:id": handlers.getUser,
  "GET /users/:id/name": handlers.getUserName,
  "GET /users/:id/exists": (params) => {
    try {
      fetchUser(Number(params.id));
      return { status: 200, body: true };
    } catch {
      return { status: 404, body: false };
    }
  },
};
