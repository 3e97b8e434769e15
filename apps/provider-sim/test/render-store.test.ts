// A render's callback carries its finished state: a timer can fire a millisecond before the clock
// reaches the render's end, and the callback then said 'processing' (flaky signed-callback tests).
import { RenderStore } from '../src/render-store';
import { parseDirectives } from '../src/directives';

afterEach(() => jest.useRealTimers());

it('whenFinished runs once the render views as finished, even when its timer fires early', () => {
  jest.useFakeTimers({ now: 1_000_000 });
  const store = new RenderStore();
  const { render } = store.submit('ch', undefined, { ref: 't', type: 'video', ratio: '16:9', resolution: '480p', renderMs: 100, directives: parseDirectives('a dog') });
  const seen: string[] = [];
  // The timer is armed as if the clock were 5 ms later than it is: it fires 5 ms before the end.
  store.whenFinished(render, (r) => seen.push(store.view(r, true).status), Date.now() + 5);
  jest.advanceTimersByTime(95);
  expect(seen).toEqual([]);
  jest.advanceTimersByTime(5);
  expect(seen).toEqual(['succeeded']);
});

it('whenFinished waits out the last milliseconds in event-loop turns: once, never before the end, and timing() says when', async () => {
  const store = new RenderStore();
  const { render } = store.submit('ch', undefined, { ref: 't2', type: 'video', ratio: '16:9', resolution: '480p', renderMs: 30, directives: parseDirectives('a cat') });
  const at = render.createdAt + render.renderMs;
  let runs = 0;
  expect(store.timing(render.id)?.callbackAt).toBeNull();
  const ranAt = await new Promise<number>((resolve) => store.whenFinished(render, () => (runs += 1, resolve(Date.now()))));
  expect(ranAt).toBeGreaterThanOrEqual(at);
  await new Promise((r) => setTimeout(r, 50));
  expect(runs).toBe(1);
  const timing = store.timing(render.id)!;
  expect(timing.finishesAt).toBe(at);
  expect(timing.callbackAt).toBeGreaterThanOrEqual(at);
});

it('whenFinished never runs inside the call, even for a render already done (the submit is answered first)', async () => {
  const store = new RenderStore();
  const { render } = store.submit('ch', undefined, { ref: 't3', type: 'video', ratio: '16:9', resolution: '480p', renderMs: 0, directives: parseDirectives('a bird') });
  const seen: string[] = [];
  store.whenFinished(render, () => seen.push('callback'));
  seen.push('submit answered');
  await new Promise((r) => setTimeout(r, 20));
  expect(seen).toEqual(['submit answered', 'callback']);
});
