import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

type Capacity = { CapacityUnits?: number };

/**
 * Counts what a document client asks of DynamoDB: every command by name (a Scan must never
 * appear) and the capacity each consumed, by setting ReturnConsumedCapacity on every request.
 * Product code is not changed: the middleware is added to the client's stack from outside.
 */
export class Meter {
  capacity = 0;
  /** Capacity as DynamoDB bills it: every read request at least 0.5 unit (1 consistent), every write at least 1. */
  billed = 0;
  readonly commands = new Map<string, number>();
  private readonly name = `bench-meter-${Math.random().toString(36).slice(2)}`;

  constructor(private readonly client: DynamoDBDocumentClient) {}

  attach(): this {
    this.client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName ?? 'unknown';
        this.commands.set(command, (this.commands.get(command) ?? 0) + 1);
        const input = args.input as Record<string, unknown>;
        input.ReturnConsumedCapacity = 'TOTAL';
        const result = await next(args);
        const consumed = (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
        const units = [consumed ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
        const floor = /^(Query|Get|Scan)/.test(command) ? (input.ConsistentRead ? 1 : 0.5) : 1;
        this.capacity += units;
        this.billed += consumed ? Math.max(units, floor) : 0;
        return result;
      },
      { step: 'initialize', name: this.name },
    );
    return this;
  }

  detach(): void {
    this.client.middlewareStack.remove(this.name);
  }

  /** Capacity units consumed and commands sent while `task` ran. */
  async measure(task: () => Promise<unknown>): Promise<{ capacity: number; billed: number; commands: Record<string, number> }> {
    const capacityBefore = this.capacity;
    const billedBefore = this.billed;
    const commandsBefore = new Map(this.commands);
    await task();
    const commands: Record<string, number> = {};
    for (const [name, n] of this.commands) if (n !== (commandsBefore.get(name) ?? 0)) commands[name] = n - (commandsBefore.get(name) ?? 0);
    return { capacity: this.capacity - capacityBefore, billed: this.billed - billedBefore, commands };
  }

  count(command: string): number {
    return this.commands.get(command) ?? 0;
  }
}
