import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FILES: Record<string, string> = {
  "notes/kickoff.md": "# Kickoff meeting\n\nGoal: ship the planning layer by March.\nOwners: Ana (runtime), Li (board).\n",
  "notes/risks.md": "# Risks\n\n- Models forget the goal on long runs.\n- Parallel todo writes race.\n- Provider rate limits.\n",
  "data/sales.csv": "month,units\njan,120\nfeb,135\nmar,160\n",
};

/** A fresh folder with a few small files for the demo to survey. */
export function createDemoWorkspace(): string {
  const root = mkdtempSync(join(tmpdir(), "stepwise-demo-"));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
