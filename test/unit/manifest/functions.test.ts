import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { handlerEntry } from '../../../infra/esbuild-options';
import { FUNCTION_DESCRIPTORS, FUNCTIONS, functionNamed } from '../../../shared/manifest/functions';

const ROOT = path.resolve(__dirname, '../../..');
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];

describe('the function descriptors', () => {
  test.each(FUNCTIONS)('%s has its handler where the CDK app and the local server look', (name) => {
    expect(existsSync(path.join(ROOT, handlerEntry(name)))).toBe(true);
  });

  // A function that says it does not write yet may write would let a read-only model be changed.
  test.each(FUNCTIONS)('%s writes exactly when it may send a write action', (name) => {
    const { writes, table } = FUNCTION_DESCRIPTORS[name];
    expect(table.some((action) => WRITE_ACTIONS.includes(action))).toBe(writes);
  });

  test('a name from outside the code is checked against the table', () => {
    expect(functionNamed('onebot_queue')).toBe('onebot_queue');
    expect(() => functionNamed('get-one')).toThrow(/no function get-one/);
  });
});
