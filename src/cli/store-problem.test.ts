import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { storeProblem } from "./store-problem.js";

describe("storeProblem", () => {
  it("names the file and the fix for a read-only store, extended codes included", () => {
    for (const code of ["SQLITE_READONLY", "SQLITE_READONLY_DBMOVED"]) {
      const problem = storeProblem(new Database.SqliteError("attempt to write a readonly database", code), "/x/stepwise.db");
      expect(problem?.message).toBe("the store /x/stepwise.db is read-only. Make it and its folder writable (chmod u+w), or point STEPWISE_HOME at a folder you can write");
      expect(problem?.exitCode).toBe(1);
    }
  });

  it("leaves other errors alone", () => {
    expect(storeProblem(new Database.SqliteError("UNIQUE constraint failed", "SQLITE_CONSTRAINT_UNIQUE"), "/x")).toBeUndefined();
    expect(storeProblem(new Error("boom"), "/x")).toBeUndefined();
    expect(storeProblem(null, "/x")).toBeUndefined();
  });
});
