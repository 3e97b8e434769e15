// InlineFile rows: the storage keys of files a client sent inline (base64) with its request, so
// they can be found (and removed) by task.
import type { Db } from './client';
import { newId } from './ids';

export interface InlineFileRecord {
  storageKey: string;
  mime: string;
  bytes: number;
}

export async function recordInlineFiles(db: Db, taskId: string, files: InlineFileRecord[]): Promise<void> {
  if (files.length === 0) return;
  await db.inlineFile.createMany({ data: files.map((f) => ({ id: newId('inl'), taskId, ...f })) });
}
