// Progress while waiting for a task: a cli-progress bar on a terminal (a maintained library that
// redraws one line, handles non-TTY streams and terminal width; not worth hand-writing), plain
// status lines otherwise, nothing with --json (stdout stays machine-readable, stderr quiet).
import { SingleBar } from 'cli-progress';
import type { Task } from '../types';
import type { Io } from './context';

export interface Progress {
  update(task: Task): void;
  stop(): void;
}

export function startProgress(io: Io, taskId: string, json: boolean): Progress {
  if (json) return { update: () => undefined, stop: () => undefined };
  if (!io.tty) {
    return {
      update: (t) => io.err(`${taskId}: ${t.status}${t.progress !== undefined ? ` ${t.progress}%` : ''}`),
      stop: () => undefined,
    };
  }
  const bar = new SingleBar({
    format: `${taskId} [{bar}] {percentage}% | {status} | {duration_formatted}`,
    stream: process.stderr,
    hideCursor: true,
    clearOnComplete: false,
  });
  bar.start(100, 0, { status: 'pending' });
  return {
    update: (t) => bar.update(t.status === 'completed' ? 100 : (t.progress ?? 0), { status: t.status }),
    stop: () => bar.stop(),
  };
}
