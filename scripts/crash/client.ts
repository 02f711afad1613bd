/** The few HTTP calls the crash run makes, with the answer's status and data. */
export interface Answer {
  status: number;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** The connection failed or broke before a whole answer arrived: the server is gone. */
export class ServerGone extends Error {}

export async function call(url: string, path: string, body: unknown): Promise<Answer> {
  let response: Response;
  let json: { data: unknown };
  try {
    response = await fetch(`${url}/api/db/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    json = (await response.json()) as { data: unknown };
  } catch (error) {
    throw new ServerGone(`${path}: ${(error as Error).message}`);
  }
  return { status: response.status, data: json.data };
}

/** Every record of a model in the given order, page by page. */
export async function listAll(url: string, model: string, orderBy: string): Promise<Array<Record<string, unknown>>> {
  const records: Array<Record<string, unknown>> = [];
  let cursor: string | undefined;
  do {
    const page = await call(url, `${model}/list`, { order_by: orderBy, limit: 1000, consistent: orderBy === 'id' ? true : undefined, cursor });
    if (page.status !== 200) throw new Error(`list by ${orderBy}: ${page.status} ${JSON.stringify(page.data)}`);
    records.push(...page.data.items);
    cursor = page.data.next_cursor ?? undefined;
  } while (cursor);
  return records;
}
