import { randomBytes } from "node:crypto";
import { constants, existsSync, type Stats } from "node:fs";
import { lstat, mkdir, open, readdir, readlink, rename, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = constants;

/**
 * Linux names a child of an open directory as `/proc/self/fd/<fd>/<name>`: the kernel resolves the
 * descriptor (wherever that folder now is) and then that one name, which O_NOFOLLOW keeps from
 * being a link. That is openat() for Node, and it makes a swap of a folder for a symbolic link
 * harmless: nothing here ever resolves a path string twice. Without /proc (macOS, Windows) the child
 * is named by path string instead and the opened descriptor cannot be read back, so a folder swapped
 * between two steps of a walk can still lead one step astray: confinement there is best effort.
 */
export const BENEATH = process.platform === "linux" && existsSync("/proc/self/fd");

/** Thrown when something was opened that is not what the walk checked, or that lies outside the root. */
export class MovedError extends Error {
  override name = "MovedError";
}

/**
 * A folder of the workspace held open by descriptor. Its children are looked up, opened, created and
 * replaced through that descriptor, never through a path string that could be re-resolved, and every
 * descriptor opened is checked to be the kind expected and still inside the root.
 */
export class HeldFolder {
  private constructor(
    private readonly handle: FileHandle,
    /** Real path of the workspace root this folder belongs to. */
    readonly root: string,
    /** Real path relative to the root, "/"-separated; "" for the root itself. */
    readonly relative: string,
    readonly stats: Stats,
    /** Children are named through the descriptor (see BENEATH), else by path string. */
    private readonly beneath: boolean,
  ) {}

  /** Opens the root itself (its real path): the start of every walk. */
  static async openRoot(realRoot: string, beneath = BENEATH): Promise<HeldFolder> {
    const handle = await open(realRoot, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    return new HeldFolder(handle, realRoot, "", await handle.stat(), beneath);
  }

  /** Where a child `name` is, as a path the kernel resolves through this folder's descriptor. */
  entry(name: string): string {
    return this.beneath ? `/proc/self/fd/${this.handle.fd}/${name}` : path.join(this.root, this.relative, name);
  }

  /** The relative path of a child, "/"-separated. */
  childRelative(name: string): string {
    return this.relative === "" ? name : `${this.relative}/${name}`;
  }

  /** The child's own metadata (a link is not followed), or undefined when nothing has that name. */
  async look(name: string): Promise<Stats | undefined> {
    try {
      return await lstat(this.entry(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async readLink(name: string): Promise<string> {
    return readlink(this.entry(name));
  }

  async names(): Promise<string[]> {
    return readdir(this.beneath ? `/proc/self/fd/${this.handle.fd}` : path.join(this.root, this.relative));
  }

  /** Opens the sub-folder `name`; a link or anything but a folder in its place is refused. */
  async openFolder(name: string): Promise<HeldFolder> {
    const handle = await open(this.entry(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    try {
      const stats = await handle.stat();
      await this.verify(handle, stats.isDirectory());
      return new HeldFolder(handle, this.root, this.childRelative(name), stats, this.beneath);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /**
   * Opens the file `name` for reading. Non-blocking, so a FIFO or device put in its place cannot
   * hang the I/O thread it opens on; the caller checks the kind from the returned stats.
   */
  async openFile(name: string): Promise<{ handle: FileHandle; stats: Stats }> {
    const handle = await open(this.entry(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    try {
      const stats = await handle.stat();
      await this.verify(handle, !stats.isDirectory() && !stats.isSymbolicLink());
      return { handle, stats };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Creates the sub-folder `name` (a link or file already there makes it fail, never followed). */
  async makeFolder(name: string): Promise<void> {
    await this.verify(this.handle, true);
    try {
      await mkdir(this.entry(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }

  /**
   * Gives `name` the content `text`: written to a new file created exclusively in this folder, then
   * renamed over `name`. The file that was there (maybe an inode shared with a file outside, through
   * a hard link) is never opened for writing, so nothing but this folder's entry changes.
   */
  async replace(name: string, text: string, mode?: number): Promise<void> {
    const temporary = `.stepwise-${randomBytes(6).toString("hex")}.tmp`;
    await this.verify(this.handle, true);
    const handle = await open(this.entry(temporary), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode ?? 0o666);
    try {
      try {
        if (mode !== undefined) await handle.chmod(mode);
        await handle.writeFile(text, "utf8");
      } finally {
        await handle.close();
      }
      await this.verify(this.handle, true); // again: the folder may have been moved while the file was written
      await rename(this.entry(temporary), this.entry(name));
    } catch (error) {
      await unlink(this.entry(temporary)).catch(() => undefined);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.handle.close();
  }

  /** The descriptor is of the expected kind and, read back from the kernel, inside the root. */
  private async verify(handle: FileHandle, expectedKind: boolean): Promise<void> {
    if (!expectedKind) throw new MovedError("changed kind while it was being opened");
    if (!this.beneath) return;
    const real = await readlink(`/proc/self/fd/${handle.fd}`);
    if (this.root !== "/" && real !== this.root && !real.startsWith(`${this.root}/`)) throw new MovedError("was moved outside the workspace");
  }
}
