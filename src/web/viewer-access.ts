import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerToken, isLoopback, loopbackHostCheck, tokenCheck } from "../integrations/http-access.js";

const COOKIE = "stepwise_ui_token";

/** Why a request may not see the viewer: the HTTP status and a reason. */
export type AccessRefusal = { status: 401 | 403; message: string };

/** Decides who may use the viewer; `refusal` returns undefined for a request that may go on. */
export type ViewerAccess = { refusal(req: IncomingMessage, res: ServerResponse): AccessRefusal | undefined };

/**
 * The viewer shows runs and takes decisions that let calls run, so: on loopback it answers only to
 * its own loopback names (DNS rebinding); anywhere else it needs a token. A browser brings the token
 * once as `?token=` and gets it back as an HttpOnly, same-site cookie, so the page's own requests
 * carry it; other clients may send `Authorization: Bearer <token>`.
 */
export function viewerAccess(host: string, token: string | undefined): ViewerAccess {
  const loopback = isLoopback(host);
  if (!loopback && !token) {
    throw new Error(
      `refusing to serve the viewer on ${host} without a token: anyone who can reach it could read the runs and approve calls. ` +
        "Pass a token (stepwise ui --token, or STEPWISE_UI_TOKEN), or bind to 127.0.0.1.",
    );
  }
  const tokenMatches = token ? tokenCheck(token) : undefined;
  return {
    refusal(req, res) {
      if (loopback && !loopbackHostCheck(req.socket.localPort ?? 0)(req.headers.host)) {
        return { status: 403, message: "the viewer only answers to its own loopback address" };
      }
      if (token === undefined || tokenMatches === undefined) return undefined;
      if (tokenMatches(bearerToken(req.headers.authorization)) || tokenMatches(cookie(req, COOKIE))) return undefined;
      if (tokenMatches(new URL(req.url ?? "/", "http://viewer").searchParams.get("token") ?? undefined)) {
        res.setHeader("set-cookie", `${COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`);
        return undefined;
      }
      res.setHeader("www-authenticate", 'Bearer realm="stepwise viewer"');
      return { status: 401, message: "this viewer needs its token: open it once with ?token=<token>, or send Authorization: Bearer <token>" };
    },
  };
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key !== name) continue;
    try {
      return decodeURIComponent(value.join("="));
    } catch {
      return undefined;
    }
  }
  return undefined;
}
