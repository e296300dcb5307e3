import { readdirSync, readlinkSync } from "node:fs";

/** How many of this process's file descriptors point at a file (a SQLite database and its -wal/-shm files). Linux only. */
export function openHandles(path: string): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(path);
    } catch {
      return false;
    }
  }).length;
}
