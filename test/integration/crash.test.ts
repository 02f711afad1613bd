import { runCrashRounds } from '../../scripts/crash/rounds';

// The crash is the embedded engine's (npm start's dynalite, on disk); DynamoDB Local is not ours to kill.
const onEmbeddedEngine = process.env.RG_TEST_ENGINE === 'dynalite' ? describe : describe.skip;

onEmbeddedEngine('kill -9 of npm start mid-write (the long variant is npm run crash)', () => {
  test('after each restart every index agrees with the records, and acknowledged writes are there', async () => {
    const report = await runCrashRounds({ rounds: 3, writers: 16, killAfterMs: [1500, 3000] });
    expect(report.problems).toEqual([]);
    expect(report.rounds).toBe(3);
    // The rounds did write and read something: a check of an empty store proves nothing.
    expect(report.acknowledged).toBeGreaterThan(50);
    expect(report.recordsChecked).toBeGreaterThan(50);
  }, 180_000);
});
