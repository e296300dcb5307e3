import { describe, expect, it } from "vitest";
import {
  EDIT_FILE_DESCRIPTION,
  LIST_DIR_DESCRIPTION,
  READ_FILE_DESCRIPTION,
  SEARCH_DESCRIPTION,
  WRITE_FILE_DESCRIPTION,
} from "./tool-descriptions.js";

const ALL = [READ_FILE_DESCRIPTION, LIST_DIR_DESCRIPTION, SEARCH_DESCRIPTION, WRITE_FILE_DESCRIPTION, EDIT_FILE_DESCRIPTION];

describe("workspace tool descriptions", () => {
  it("each tells the model paths are relative to the workspace root and cannot leave it", () => {
    for (const description of ALL) {
      expect(description).toContain("relative to the workspace root");
      expect(description).toContain("outside the workspace");
    }
  });

  it("read_file explains how to continue a cut-off file", () => {
    expect(READ_FILE_DESCRIPTION).toContain("start_line");
  });

  it("list_dir and search say which folders they skip", () => {
    for (const description of [LIST_DIR_DESCRIPTION, SEARCH_DESCRIPTION]) {
      expect(description).toContain("node_modules");
      expect(description).toContain(".git");
    }
    expect(SEARCH_DESCRIPTION).toContain("ignore_case");
    expect(SEARCH_DESCRIPTION).toContain("regex");
  });

  it("write_file points to edit_file for partial changes", () => {
    expect(WRITE_FILE_DESCRIPTION).toContain("edit_file");
  });

  it("edit_file demands an exact, unique old_text and names replace_all", () => {
    expect(EDIT_FILE_DESCRIPTION).toContain("exactly");
    expect(EDIT_FILE_DESCRIPTION).toContain("exactly once");
    expect(EDIT_FILE_DESCRIPTION).toContain("replace_all");
  });
});
