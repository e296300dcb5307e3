// The package as its users meet it: packed, installed into fresh consumer projects beside each
// framework at its latest release and at the oldest one supported, type-checked strictly (nodenext,
// skipLibCheck: false) and run against that framework's own fake model. The README's examples for
// each framework are type-checked and run there too, copied as written.
//
//   npm run test:consumers                  every project
//   npm run test:consumers -- langchain     the projects whose name contains "langchain"
//
// Each project's node_modules is kept under ~/.cache/stepwise-consumers/ (STEPWISE_CONSUMER_CACHE),
// keyed on its versions, so a second run reinstalls only the tarball.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { holdCacheLock } from "./cache-lock.js";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const PROGRAMS = join(REPO, "test", "consumers", "programs");
const TEST_SUPPORT = join(REPO, "src", "integrations", "test-support");
// Outside the clone, whose node_modules `npm ci` clears: CI on this machine finds the installs again.
const CACHE = process.env["STEPWISE_CONSUMER_CACHE"] ?? join(process.env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache"), "stepwise-consumers");
const TSC = join(REPO, "node_modules", "typescript", "bin", "tsc");

/** What every consumer has beside Stepwise: Node's types, and zod where a framework's tools want it. */
const BASE = { "@types/node": "20.19.43", zod: "4.6.7" };

/** The newest releases that run on Node 20 and the oldest the peer ranges in package.json allow. */
const LANGCHAIN = {
  latest: { langchain: "1.5.14", "@langchain/core": "1.4.0", "@langchain/langgraph": "1.7.3" },
  oldest: { langchain: "1.5.0", "@langchain/core": "1.4.0", "@langchain/langgraph": "1.7.0" },
};
/** LangChain's PostgreSQL checkpointer, for the restart; its own types import pg's. */
const LANGCHAIN_POSTGRES = { "@langchain/langgraph-checkpoint-postgres": "1.0.5", pg: "8.23.1", "@types/pg": "8.23.1" };
const OPENAI_AGENTS = { latest: { "@openai/agents": "0.20.0" }, oldest: { "@openai/agents": "0.14.3" } };
/** ai 7 declares Node 22 yet runs on 20; the newest 6.x is checked too, as most Node 20 users have it. */
const AI_SDK = {
  latest: { ai: "7.0.173", "@ai-sdk/provider": "4.0.38" },
  "6-latest": { ai: "6.0.333", "@ai-sdk/provider": "3.0.19" },
  oldest: { ai: "6.0.0", "@ai-sdk/provider": "3.0.0" },
};

type Consumer = { name: string; dependencies: Record<string, string>; programs: string[]; readme?: string };

const CONSUMERS: Consumer[] = [
  { name: "root", dependencies: {}, programs: ["root"] },
  ...(["latest", "oldest"] as const).flatMap((at): Consumer[] => [
    { name: `langchain-${at}`, dependencies: { ...LANGCHAIN[at], ...LANGCHAIN_POSTGRES }, programs: ["langchain"], readme: "langchain" },
    { name: `openai-agents-${at}`, dependencies: OPENAI_AGENTS[at], programs: ["openai-agents"], readme: "openai-agents" },
    { name: `ai-sdk-${at}`, dependencies: AI_SDK[at], programs: ["ai-sdk"], readme: "ai-sdk" },
  ]),
  { name: "ai-sdk-6-latest", dependencies: AI_SDK["6-latest"], programs: ["ai-sdk"], readme: "ai-sdk" },
];

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    skipLibCheck: false,
    types: ["node"],
    outDir: "out",
    rootDir: "src",
  },
  include: ["src"],
};

function run(command: string, args: string[], cwd: string): { status: number; output: string } {
  // The Agents SDK would try to export traces to OpenAI: nothing leaves this machine.
  const env = { ...process.env, npm_config_fund: "false", npm_config_audit: "false", OPENAI_AGENTS_DISABLE_TRACING: "1" };
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env });
  return { status: result.status ?? 1, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

/** The README's code blocks marked `<!-- consumer: name -->` (the line before the fence), as written. */
function readmeSnippets(name: string): string[] {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const marker = `<!-- consumer: ${name} -->`;
  const snippets: string[] = [];
  for (const part of readme.split(marker).slice(1)) {
    const block = /^\s*```ts\n([\s\S]*?)\n```/.exec(part);
    if (!block) throw new Error(`README: ${marker} is not followed by a \`\`\`ts block.`);
    snippets.push(block[1] as string);
  }
  return snippets;
}

/** The tarball, always at one path, so a cached project's package.json stays the same. */
function pack(): string {
  const into = join(CACHE, "pack");
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  const packed = run("npm", ["pack", "--silent", "--pack-destination", into], REPO);
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.output}`);
  const tarball = readdirSync(into).find((file) => file.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack made no tarball");
  return join(into, tarball);
}

function check(consumer: Consumer, tarball: string): boolean {
  const dependencies = { ...BASE, ...consumer.dependencies };
  const key = createHash("sha256").update(JSON.stringify(dependencies)).digest("hex").slice(0, 12);
  const dir = join(CACHE, `${consumer.name}-${key}`);
  mkdirSync(dir, { recursive: true });
  const pkg = { name: `consumer-${consumer.name}`, private: true, type: "module", dependencies: { ...dependencies, stepwise: `file:${tarball}` } };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  rmSync(join(dir, "src"), { recursive: true, force: true });
  rmSync(join(dir, "out"), { recursive: true, force: true });
  rmSync(join(dir, "package-lock.json"), { force: true });
  // npm takes a file: dependency of the same version as installed already; the tarball is new.
  rmSync(join(dir, "node_modules", "stepwise"), { recursive: true, force: true });
  mkdirSync(join(dir, "src"));
  cpSync(join(PROGRAMS, "check.ts"), join(dir, "src", "check.ts"));
  // Helpers the repository's own adapter tests use too, copied rather than written twice.
  const helpers = consumer.programs.includes("ai-sdk") ? ["meeting-point.ts", "ai-sdk-replies.ts"] : ["meeting-point.ts"];
  for (const helper of helpers) cpSync(join(TEST_SUPPORT, helper), join(dir, "src", helper));
  for (const program of consumer.programs) cpSync(join(PROGRAMS, `${program}.ts`), join(dir, "src", `${program}.ts`));
  const snippets = consumer.readme ? readmeSnippets(consumer.readme) : [];
  if (consumer.readme && snippets.length === 0) throw new Error(`README has no <!-- consumer: ${consumer.readme} --> example.`);
  snippets.forEach((snippet, i) => {
    const prelude = readFileSync(join(PROGRAMS, `readme-${consumer.readme}.prelude.ts`), "utf8");
    writeFileSync(join(dir, "src", `readme-${i + 1}.ts`), `${prelude}\n// ---- the README's example, as written ----\n${snippet}\n`);
  });

  const started = Date.now();
  const installed = run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=warn"], dir);
  const peerTrouble = /ERESOLVE|peer dep|conflicting peer/i.test(installed.output);
  console.log(`\n== ${consumer.name}: ${Object.entries(consumer.dependencies).map(([n, v]) => `${n}@${v}`).join(" ") || "no framework"}`);
  if (installed.status !== 0 || peerTrouble) {
    console.log(`FAIL npm install (${installed.status !== 0 ? "failed" : "peer warnings"}):\n${installed.output}`);
    return false;
  }
  console.log(`ok   npm install with no peer error (${Math.round((Date.now() - started) / 1000)}s)`);
  const typed = run(process.execPath, [TSC, "-p", "."], dir);
  if (typed.status !== 0) {
    console.log(`FAIL tsc --noEmit (strict, nodenext, skipLibCheck: false):\n${typed.output}`);
    return false;
  }
  console.log("ok   tsc (strict, nodenext, skipLibCheck: false)");
  let passed = true;
  const programs = [...consumer.programs, ...snippets.map((_, i) => `readme-${i + 1}`)];
  for (const program of programs) {
    const ran = run(process.execPath, [join("out", `${program}.js`)], dir);
    process.stdout.write(ran.output.replace(/^/gm, "     ").replace(/ {5}$/, ""));
    console.log(`${ran.status === 0 ? "ok  " : "FAIL"} ${program} ran`);
    passed &&= ran.status === 0;
  }
  return passed;
}

const only = process.argv[2];
const chosen = CONSUMERS.filter((consumer) => !only || consumer.name.includes(only));
holdCacheLock(CACHE);
const tarball = pack();
let passed = 0;
let failed = 0;
for (const consumer of chosen) {
  if (check(consumer, tarball)) passed++;
  else failed++;
}
console.log(`\nconsumers: ${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
