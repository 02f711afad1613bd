import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { useApi } from '../support/api';

const TOKEN = 'docs-e2e-token';
const ARTIFACTS = join(__dirname, '../../test-artifacts');
process.env.API_TOKENS = JSON.stringify({ [TOKEN]: ['read', 'write'] });

const api = useApi();
let browser: Browser | undefined;

// jest.config.js runs this project only where it found Chromium (scripts/chromium.js).
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
});

/** Opens an operation, presses "Try it out", puts `body` in the editor, presses Execute; answers the shown status and body. */
async function tryOperation(page: Page, operationId: string, body: unknown): Promise<{ status: string; body: string }> {
  const block = page.locator(`#operations-${operationId.split('_')[0]}-${operationId}`);
  await block.locator('.opblock-summary').first().click();
  await block.getByRole('button', { name: 'Try it out' }).click();
  await block.locator('textarea.body-param__text').fill(JSON.stringify(body, null, 2));
  await block.getByRole('button', { name: 'Execute' }).click();
  const answer = block.locator('.live-responses-table .response');
  await answer.locator('.response-col_status').waitFor();
  return {
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText, the text a reader sees, not the DOM property
    status: (await answer.locator('.response-col_status').innerText()).trim(),
    body: await bodyText(answer),
  };
}

// biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText, the text a reader sees, not the DOM property
const bodyText = (answer: Locator) => answer.locator('.response-col_description .microlight').first().innerText();

test('a user opens /docs, authorizes with a token, runs create then list, and sees the record', async () => {
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  const elsewhere: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(api.url)) elsewhere.push(request.url());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });

  await page.goto(`${api.url}/docs`);
  await page.locator('#operations-reaction-reaction_create').waitFor();

  await page.locator('.scheme-container button.authorize').click();
  await page.locator('.modal-ux input[type=text]').fill(TOKEN);
  await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
  await page.locator('.modal-ux button.btn-done').click();

  const record = { user_id: 1669571, user_name: 'octocat', content: 'docs-e2e' };
  const created = await tryOperation(page, 'reaction_create', { id: 'docs-e2e-1', data: record });
  expect(created.status).toBe('201');
  expect(JSON.parse(created.body)).toMatchObject({ status: 'success', data: { id: 'docs-e2e-1', ...record, _version: 1 } });

  const listed = await tryOperation(page, 'reaction_list', { filters: { content: 'docs-e2e' } });
  expect(listed.status).toBe('200');
  expect(JSON.parse(listed.body).data.items).toEqual([expect.objectContaining({ id: 'docs-e2e-1', ...record })]);

  const stored = await api.post('/api/db/reaction/get_one', { filters: { id: 'docs-e2e-1' } }, { authorization: `Bearer ${TOKEN}` });
  expect(stored.body.data).toMatchObject(record);

  // The kept artifact shows what the user saw: the list answer with the record in it.
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.locator('#operations-reaction-reaction_list .live-responses-table').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(ARTIFACTS, 'docs.png') });
  expect(elsewhere).toEqual([]);
  expect(problems).toEqual([]);
});
