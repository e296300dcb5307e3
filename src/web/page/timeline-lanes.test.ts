import { describe, expect, it } from "vitest";
import { packLanes, type TimelineBar } from "./timeline-view.js";

const bar = (startSeq: number, endSeq: number, running = false): TimelineBar => ({
  kind: "tool",
  runId: "r",
  callRunId: "r",
  label: "t",
  start: startSeq,
  end: endSeq,
  startSeq,
  endSeq,
  running,
  interrupted: false,
  error: false,
});

describe("packLanes", () => {
  it("gives calls that overlap in the log lanes of their own, and reuses a lane once its call has ended", () => {
    // 1 and 2 overlap; 3 starts after 1 ended; 4 starts while 2 and 3 run.
    expect(packLanes([bar(1, 4), bar(2, 6), bar(5, 9), bar(7, 8)])).toEqual([0, 1, 0, 1]);
    expect(packLanes([bar(1, 2), bar(3, 4), bar(5, 6)])).toEqual([0, 0, 0]);
  });

  it("keeps a running call's lane taken, and places bars by start whatever order they come in", () => {
    expect(packLanes([bar(1, 1, true), bar(5, 6)])).toEqual([0, 1]);
    expect(packLanes([bar(5, 6), bar(1, 3), bar(2, 7)])).toEqual([0, 0, 1]);
  });
});
