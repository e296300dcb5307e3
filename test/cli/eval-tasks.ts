import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/** A task folder: the scripted demo solves it by writing out.txt from solution/. */
export function task(suite: string, id: string, check: string): void {
  const dir = join(suite, id);
  mkdirSync(join(dir, "setup"), { recursive: true });
  mkdirSync(join(dir, "solution", "files"), { recursive: true });
  writeFileSync(join(dir, "task.json"), JSON.stringify({ title: `Task ${id}`, kind: "code", maxSteps: 5 }));
  writeFileSync(join(dir, "prompt.md"), `Write out.txt for task ${id}.\n`);
  writeFileSync(join(dir, "setup", "readme.txt"), "write out.txt\n");
  writeFileSync(join(dir, "solution", "files", "out.txt"), "done\n");
  writeFileSync(join(dir, "check.mjs"), check);
}

export const PLAIN_CHECK = `import { readFileSync } from "node:fs";
import { join } from "node:path";
if (readFileSync(join(process.argv[2], "out.txt"), "utf8") !== "done\\n") { console.log("out.txt is wrong"); process.exit(1); }
console.log("out.txt is right");
`;

/**
 * A check that says it has started, then holds its trial unfinished until released. It cannot leave
 * a file outside its scratch folder (checks write nowhere else), so it asks a local HTTP server.
 */
export async function blockingCheck(): Promise<{ check: string; entered: Promise<void>; release(): void; close(): Promise<void> }> {
  let entered!: () => void;
  const enteredOnce = new Promise<void>((resolve) => (entered = resolve));
  const held: ServerResponse[] = [];
  let released = false;
  const server = createServer((req, res) => {
    if (req.url === "/entered") {
      entered();
      return void res.end();
    }
    if (released) return void res.end();
    held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    check: `await fetch("${url}/entered");\nawait fetch("${url}/release");\n${PLAIN_CHECK}`,
    entered: enteredOnce,
    release: () => {
      released = true;
      for (const res of held.splice(0)) res.end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
