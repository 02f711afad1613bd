import { tableNameProblem } from '../../shared/config';

// One rule for TABLE_NAME, read by the functions (settings()) and by `npm start` before it
// touches anything (scripts/local/startup.ts): DynamoDB's own.
test.each(['rec', 'recordgate', 'Recordgate-RecordsTable-KEPT', 'test_0a1b2c.v2', 'a'.repeat(255)])('%s is a table name', (name) => {
  expect(tableNameProblem(name)).toBeUndefined();
});

test.each(['', 'ab', 'a'.repeat(256), 'my table', 'records/1', 'tablé'])('%j is not', (name) => {
  expect(tableNameProblem(name)).toMatch(/is not a DynamoDB table name; use 3-255 letters, digits/);
});
