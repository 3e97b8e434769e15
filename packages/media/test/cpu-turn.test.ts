// Heavy synchronous steps (checks of multi-MB inline files) take turns: one at a time, the next
// only from a fresh timer after the previous released, so two never run back to back in one phase.
import { cpuTurn } from '../src';

it('grants one turn at a time and hands over through a new turn of the event loop', async () => {
  const first = await cpuTurn();
  let second = false;
  const next = cpuTurn().then((release) => ((second = true), release));
  await new Promise((r) => setImmediate(r));
  expect(second).toBe(false); // waits while the first holds its turn
  let timerRan = false;
  setTimeout(() => (timerRan = true), 0); // queued before the hand-over timer
  first();
  await Promise.resolve();
  expect(second).toBe(false); // not in the releasing step's own tick
  const release = await next;
  expect(timerRan).toBe(true); // timers got their turn in between
  release();
  const third = await cpuTurn(); // free again after the hand-over
  third();
});
