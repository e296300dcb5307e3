import type { AgentEvent } from "../../core/events.js";
import type { WorkUnit } from "../work-units.js";
import { unitRef } from "./folded-record.js";

/** A unit as the ledger knows it. `order` rises with every start and finish, so it sorts by recency. */
export type LedgerUnit = { unit: WorkUnit; live: boolean; outcome: string; order: number };

/** The ledger as plain JSON, for the plugin's saved state. */
export type LedgerState = {
  units: LedgerUnit[];
  /** Turn key (first tool call id) → the ref of the unit that owns the turn. */
  owners: [string, string][];
  currentTurn: string | null;
  order: number;
};

/**
 * Which unit of planned work each tool turn belongs to, learnt from the agent's events. A turn belongs
 * to the most recently started unit that was in progress while it ran; a unit started by one of the
 * turn's calls takes the turn, so a finished unit never owns the call that started its successor.
 */
export class UnitLedger {
  #units = new Map<string, LedgerUnit>();
  #owners = new Map<string, string>();
  #currentTurn: string | null = null;
  #order = 0;

  observe(event: AgentEvent): void {
    switch (event.type) {
      case "model-end": {
        const key = event.message.toolCalls?.[0]?.id;
        this.#currentTurn = key ?? null;
        const owner = this.#newestLive();
        if (key !== undefined && owner) this.#owners.set(key, unitRef(owner.unit));
        break;
      }
      case "unit-start": {
        const ref = unitRef(event.unit);
        this.#units.set(ref, { unit: { ...event.unit }, live: true, outcome: "", order: ++this.#order });
        if (this.#currentTurn !== null) this.#owners.set(this.#currentTurn, ref);
        break;
      }
      case "unit-end": {
        const ref = unitRef(event.unit);
        const known = this.#units.get(ref);
        this.#units.set(ref, { unit: { ...(known?.unit ?? event.unit) }, live: false, outcome: event.outcome, order: ++this.#order });
        break;
      }
    }
  }

  /** The unit owning a turn, if any. */
  ownerOf(turnKey: string): LedgerUnit | undefined {
    const ref = this.#owners.get(turnKey);
    return ref === undefined ? undefined : this.#units.get(ref);
  }

  /** Folded turns are gone from memory; their ownership need not be kept. */
  forget(turnKeys: Iterable<string>): void {
    for (const key of turnKeys) this.#owners.delete(key);
  }

  /** The ledger as saved state; its units are the live ones, for the saver to copy (the agent does). */
  toJSON(): LedgerState {
    return {
      units: [...this.#units.values()],
      owners: [...this.#owners],
      currentTurn: this.#currentTurn,
      order: this.#order,
    };
  }

  load(state: LedgerState): void {
    this.#units = new Map(state.units.map((entry) => [unitRef(entry.unit), structuredClone(entry)]));
    this.#owners = new Map(state.owners);
    this.#currentTurn = state.currentTurn;
    this.#order = state.order;
  }

  #newestLive(): LedgerUnit | undefined {
    let newest: LedgerUnit | undefined;
    for (const entry of this.#units.values()) if (entry.live && (!newest || entry.order > newest.order)) newest = entry;
    return newest;
  }
}
