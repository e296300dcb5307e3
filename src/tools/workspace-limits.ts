/** Bounds that keep one tool result small enough for a model's context and one call quick. */
export interface WorkspaceLimits {
  /** Largest file read_file, edit_file or search will open, in bytes. */
  maxFileBytes: number;
  /** Most characters of file text one read_file result shows before it is cut with a notice. */
  maxReadChars: number;
  /** Most entries one list_dir result shows. */
  maxListEntries: number;
  /** Most matching lines one search result shows. */
  maxSearchResults: number;
}

export const DEFAULT_WORKSPACE_LIMITS: WorkspaceLimits = {
  maxFileBytes: 2_000_000,
  maxReadChars: 40_000,
  maxListEntries: 400,
  maxSearchResults: 100,
};

/** Folders no listing or search descends into: dependencies and version-control internals. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(["node_modules", ".git"]);
