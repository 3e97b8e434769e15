// The cached-poll lane's URL test (routes/poll-paths.ts): documentedPollType accepts exactly the
// URLs DOCUMENTED_POLL_URL matches, with the same type and task id.
import { DOCUMENTED_POLL_URL, documentedPollType, pollTaskId } from '../src/routes/poll-paths';

const id = '7480a766-288d-4eaf-b572-e295d41bf1f8';
const urls = [
  `/api/image/tasks/${id}`,
  `/api/video/tasks/${id}`,
  '/api/image/tasks/a',
  '/api/video/tasks/A_z-9',
  `/api/image/tasks/${'x'.repeat(200)}`,
  `/api/image/tasks/${'x'.repeat(201)}`,
  '/api/image/tasks/',
  '/api/image/tasks',
  `/api/IMAGE/tasks/${id}`,
  `/api/image/tasks/${id}/`,
  `/api/image/tasks/${id}?via=chain`,
  `/api/image/tasks/${id}%20`,
  `/api/image/tasks/${id}\n`,
  `/api/image/tasks/${id}.json`,
  `/api/audio/tasks/${id}`,
  `/api/image/tasks/${id}/extra`,
  `//api/image/tasks/${id}`,
  `/api/image/tasks/ab cd`,
  `/api/image/tasks/é`,
  `x/api/image/tasks/${id}`,
  '/api/video/tasks/-',
  '/',
  '',
];

describe('documentedPollType', () => {
  it.each(urls)('agrees with DOCUMENTED_POLL_URL on %j', (url) => {
    const m = DOCUMENTED_POLL_URL.exec(url);
    const type = documentedPollType(url);
    expect(type).toBe(m?.[1]);
    if (type !== undefined) expect(pollTaskId(url)).toBe(m![2]);
  });

  it('holds no state between calls (its sticky expression restarts each time)', () => {
    expect(documentedPollType(`/api/image/tasks/${id}?q`)).toBeUndefined();
    expect(documentedPollType(`/api/image/tasks/${id}`)).toBe('image');
    expect(documentedPollType(`/api/image/tasks/${id}`)).toBe('image');
  });
});
