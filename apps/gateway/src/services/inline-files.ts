// Inline (data URI) reference files: decoded and checked by packages/media, stored only once the
// task exists (a refused submit leaves no file), and handed to providers as URLs of our own
// storage, so the task row never holds the base64 itself. Images of a large body are the
// exception: written while the body arrived (middleware/inline-staging.ts), they are already under
// their key, and only recorded here; the request deletes them when no task takes them.
import type { DecodedInline } from '@mediagen/media';
import type { MediaRef, TaskSpec } from '@mediagen/catalog';
import { newInputKey, signedFileUrl } from '@mediagen/storage';
import { recordInlineFiles } from '@mediagen/db';
import type { GatewayDeps } from '../deps';

export interface InlinePlan {
  files: { key: string; file: DecodedInline }[];
  rewrite(spec: TaskSpec): TaskSpec;
}

/**
 * Inputs are private: unguessable keys without the task id, and the provider gets a
 * signed URL that stops working once the task's deadline has passed (an hour of slack for clocks
 * and the provider's own queue). Deleted when the task settles (packages/db settled-inputs).
 */
const SIGNED_SLACK_MS = 60 * 60_000;

export function planInlineFiles(deps: GatewayDeps, taskId: string, inline: DecodedInline[], deadlineAt: Date): InlinePlan {
  const files = inline.map((file, i) => ({ key: file.stored?.key ?? newInputKey(i, file.ext), file }));
  const expires = new Date(deadlineAt.getTime() + SIGNED_SLACK_MS);
  const urlByPath = new Map(files.map((f) => [f.file.ref.path, signedFileUrl(deps.config, deps.config.FILE_SIGNING_SECRET, f.key, expires)]));
  const fix = (r: MediaRef): MediaRef => {
    const url = urlByPath.get(r.path);
    // Our copy replaces the client's URL; the reference keeps its kind and source (a snapshotted
    // URL reference stays a URL reference, now pointing at bytes that cannot change).
    return url ? { ...r, url } : r;
  };
  return {
    files,
    rewrite(spec) {
      if (spec.type === 'image') return { ...spec, images: spec.images.map(fix) };
      return {
        ...spec,
        media: spec.media.map(fix),
        firstFrame: spec.firstFrame && fix(spec.firstFrame),
        lastFrame: spec.lastFrame && fix(spec.lastFrame),
      };
    },
  };
}

export async function storeInlineFiles(deps: GatewayDeps, taskId: string, plan: InlinePlan): Promise<void> {
  if (plan.files.length === 0) return;
  await Promise.all(plan.files.map((f) => (f.file.bytes ? deps.storage.put(f.key, f.file.bytes, f.file.mime) : null)));
  await recordInlineFiles(deps.db, taskId, plan.files.map((f) => ({ storageKey: f.key, mime: f.file.mime, bytes: f.file.stored?.bytes ?? f.file.bytes!.length })));
}
