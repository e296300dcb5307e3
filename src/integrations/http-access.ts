import { createHash, timingSafeEqual } from "node:crypto";

/** Addresses only this machine can reach: serving on them needs no token. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The Host headers a loopback server answers to. A page on another site can point its own DNS name
 * at 127.0.0.1 (DNS rebinding) and reach the server as same-origin, but its requests still carry
 * that name in Host, so anything but our own loopback names is refused.
 */
export function loopbackHostCheck(port: number): (hostHeader: string | undefined) => boolean {
  const names = ["127.0.0.1", "localhost", "[::1]"];
  // Browsers leave the default port out of Host.
  const allowed = new Set([...names.map((name) => `${name}:${port}`), ...(port === 80 ? names : [])]);
  return (hostHeader) => hostHeader !== undefined && allowed.has(hostHeader.toLowerCase());
}

/** Compares digests so neither the token's length nor its prefix leaks through timing. */
export function tokenCheck(token: string): (candidate: string | undefined) => boolean {
  const expected = createHash("sha256").update(token).digest();
  return (candidate) => candidate !== undefined && candidate !== "" && timingSafeEqual(createHash("sha256").update(candidate).digest(), expected);
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer (.+)$/i.exec(authorization ?? "")?.[1];
}
