/**
 * The process clock moved forward on demand, so that a test can deliver an event "an hour
 * later" without sleeping. Date.now() (what the receiver stamps a delivery with, and what the
 * sender emulations put in `time`) runs on from the real clock plus the offset; timers are
 * untouched. Moved only between requests, so no request sees its own deadline jump.
 */
export function useClock(): { advance(ms: number): void } {
  const realNow = Date.now;
  let offset = 0;
  beforeAll(() => {
    Date.now = () => realNow() + offset;
  });
  afterAll(() => {
    Date.now = realNow;
  });
  return {
    advance(ms) {
      offset += ms;
    },
  };
}
