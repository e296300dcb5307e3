import type { ChatModel } from "../../core/model.js";

/** A provider that never answers: only stopping the run ends its call. `asked` settles once it is called. */
export function silentModel(id = "scripted:silent"): { model: ChatModel; asked: Promise<void> } {
  let called!: () => void;
  const asked = new Promise<void>((resolve) => (called = resolve));
  const model: ChatModel = {
    id,
    generate: () => {
      called();
      return new Promise(() => {});
    },
  };
  return { model, asked };
}
