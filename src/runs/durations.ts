/**
 * How long a run took, for a person: 0.4 s, 12.3 s, 4m 05s, 2h 03m, 3d 04h. Pure, so the viewer's page
 * loads it too (the CLI's run list and the page's say the same).
 */
export function formatDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const two = (n: number) => String(Math.floor(n)).padStart(2, "0");
  if (s < 3600) return `${Math.floor(s / 60)}m ${two(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${two((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${two((s % 86_400) / 3600)}h`;
}
