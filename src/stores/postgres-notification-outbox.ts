import type pg from "pg";

/** A NOTIFY payload must stay under 8,000 bytes. */
export const MAX_NOTIFICATION_PAYLOAD = 7_500;

/**
 * Announces committed changes on a LISTEN/NOTIFY channel, batched. Sending a notification inside the
 * writing transaction makes every commit wait for the database-wide lock NOTIFY holds through its
 * commit (and fsync), which serializes all writers: a fleet of run drivers made half the steps per
 * second with it. Instead a change is queued once its write committed, and one NOTIFY (a short
 * transaction of its own) carries every change of the last `batchMs`, in order: JSON arrays of the
 * queued texts, each under `MAX_NOTIFICATION_PAYLOAD`. Best effort, as LISTEN/NOTIFY is: a lost
 * announcement leaves the data intact.
 */
export class NotificationOutbox {
  readonly #pool: pg.Pool;
  readonly #channel: string;
  readonly #batchMs: number;
  /** JSON texts of committed changes waiting for the next NOTIFY. */
  #queued: string[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sending: Promise<void> = Promise.resolve();

  constructor(pool: pg.Pool, channel: string, batchMs: number) {
    this.#pool = pool;
    this.#channel = channel;
    this.#batchMs = batchMs;
  }

  /** Queues a committed change, as JSON text of at most `MAX_NOTIFICATION_PAYLOAD - 2` bytes. */
  queue(json: string): void {
    this.#queued.push(json);
    this.#timer ??= setTimeout(() => void this.flush(), this.#batchMs);
  }

  /** Sends what is queued now; resolves once every NOTIFY sent so far has been answered. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const payloads = packPayloads(this.#queued.splice(0));
    this.#sending = this.#sending.then(async () => {
      for (const payload of payloads) await this.#pool.query("SELECT pg_notify($1, $2)", [this.#channel, payload]).catch(() => undefined);
    });
    return this.#sending;
  }
}

/** The texts as JSON arrays, in order, each under MAX_NOTIFICATION_PAYLOAD bytes. */
function packPayloads(texts: readonly string[]): string[] {
  const payloads: string[] = [];
  let batch: string[] = [];
  let size = 2;
  for (const text of texts) {
    const bytes = Buffer.byteLength(text);
    if (size + bytes + 1 > MAX_NOTIFICATION_PAYLOAD && batch.length > 0) {
      payloads.push(`[${batch.join(",")}]`);
      batch = [];
      size = 2;
    }
    batch.push(text);
    size += bytes + 1;
  }
  if (batch.length > 0) payloads.push(`[${batch.join(",")}]`);
  return payloads;
}
