// The service logs every 5xx and every fault it survives; tests provoke dozens on purpose, and
// their lines would make a green run read red. Silent unless the run says otherwise
// (`LOG_LEVEL=debug npx jest ...` shows them); a test that asserts a log line raises the level
// for itself with spyOnLog (test/support/log.ts). Child processes (the local server) inherit it.
process.env.LOG_LEVEL ??= 'silent';
