// The one-line note the reminder plugin appends at the tail of a request. Prompts are code:
// task-reminder.test.ts checks what it must say.

export function taskReminderNote(counts: { pending: number; inProgress: number }): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  return `<system-reminder>Task board: ${plural(counts.inProgress, "task")} in progress, ${counts.pending} pending. Keep statuses current with TaskUpdate; TaskList shows the details.</system-reminder>`;
}
