/**
 * A tool body for two overlapping runs: each call waits until the second one arrives, so a test
 * sees both runs mid-run at once, by the event rather than by a timer.
 */
export function meetingPoint(): () => Promise<string> {
  let arrived = 0;
  let release: () => void = () => {};
  const both = new Promise<void>((resolve) => (release = resolve));
  return async () => {
    if (++arrived === 2) release();
    await both;
    return "met";
  };
}
