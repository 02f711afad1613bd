import { fork, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import * as path from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Invocation } from '../../../scripts/local/gateway';
import type { DeployedFunction } from './assembly';

/**
 * What runs inside a sandbox: Lambda's Node.js runtime in miniature. It imports the bundle's
 * index.mjs once (the cold start), then takes one event at a time and answers what the handler
 * returned, with a context whose remaining time counts down to the deadline. The harness alone
 * moves its clock, to the test process's (a test that moves time: docs/testing.md): no bundle
 * holds a switch that could move a deployment's.
 */
const RUNTIME = `
const loaded = import(require('node:url').pathToFileURL(require('node:path').join(process.env.LAMBDA_TASK_ROOT, 'index.mjs')));
const realNow = Date.now;
process.on('message', async ({ requestId, event, deadline, env, now }) => {
  Object.assign(process.env, env);
  // The test's clock (test/support/clock.ts), moved by more than a second: the bundle runs by it, as a suite's in-process server does.
  const offset = now - realNow();
  Date.now = Math.abs(offset) > 1000 ? () => realNow() + offset : realNow;
  const { handler } = await loaded;
  const context = {
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME, functionVersion: '$LATEST', awsRequestId: requestId,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE, callbackWaitsForEmptyEventLoop: true,
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:' + process.env.AWS_LAMBDA_FUNCTION_NAME,
    logGroupName: '/aws/lambda/' + process.env.AWS_LAMBDA_FUNCTION_NAME, logStreamName: 'artifact',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    process.send({ requestId, result: await handler(event, context) });
  } catch (error) {
    process.send({ requestId, error: { name: error && error.name, message: error && error.message } });
  }
});
loaded.then(() => process.send({ ready: true }));
`;

export interface SandboxSettings {
  /** Values for the template's references, and its paths under /var/task moved to the copy. */
  resolve(name: string, value: unknown): string;
  /** Environment Lambda itself provides: region, credentials, the SDK's endpoint settings. */
  lambdaEnvironment: Record<string, string>;
  /** Overrides the template's timeout (a deliberately short budget), or derives one from it (and the function's name) at each invocation. */
  timeoutSeconds?: number | ((configured: number, fn: string) => number);
  /** Test-only settings added to the environment before each invocation (TEST_CALL_TIMEOUT_MS, docs/testing.md). */
  invocationEnvironment?: () => Record<string, string>;
}

/**
 * Lambda runs each sandbox's init (the bundle's module load) on that sandbox's own CPU, and the
 * init never counts against an invocation. Here every sandbox shares this machine's cores: 50
 * concurrent requests forked 50 Node processes at once, and their loads took the CPU from the
 * sandboxes already serving an invocation, whose 2 s bound on the secrets read
 * (CALL_LIMITS.secretTimeoutMs) ran out before their own request left the process (measured: the
 * stand-in answered each read within 2 ms of its arrival, but the first arrived 2.5 s after its
 * invocation started). So at most one sandbox per core loads at a time, in this test process; a
 * request still gets a sandbox of its own, as in Lambda, and waits for its turn to load it.
 */
const INIT_SLOTS = availableParallelism();
let initializing = 0;
const waitingToInit: Array<() => void> = [];

async function initSlot(): Promise<() => void> {
  if (initializing < INIT_SLOTS) initializing += 1;
  else await new Promise<void>((resolve) => waitingToInit.push(resolve));
  // A freed slot passes straight to the next sandbox waiting for one.
  return () => {
    const next = waitingToInit.shift();
    if (next) next();
    else initializing -= 1;
  };
}

/**
 * Runs one deployed function's bundle as Lambda would: a copy of the asset in a directory far
 * from the repository (no source, no node_modules to fall back on), fresh Node processes with
 * only the environment the template and Lambda give, one event per process at a time, more
 * processes under concurrency (loaded a few at a time, initSlot), and a process stopped when it
 * runs past its timeout.
 */
export class FunctionSandboxes {
  private readonly idle: ChildProcess[] = [];
  private readonly all = new Set<ChildProcess>();
  private stopped = false;
  private readonly taskRoot: string;
  /** Everything the function wrote to stdout and stderr, one entry per line. */
  readonly logs: string[] = [];
  coldStarts = 0;

  constructor(
    private readonly fn: DeployedFunction,
    private readonly settings: SandboxSettings,
  ) {
    const root = mkdtempSync(path.join(tmpdir(), `rg-lambda-${fn.name}-`));
    this.taskRoot = path.join(root, 'task');
    cpSync(fn.assetDir, this.taskRoot, { recursive: true });
    writeFileSync(path.join(root, 'runtime.js'), RUNTIME);
  }

  private environment(): Record<string, string> {
    const fromTemplate = Object.fromEntries(
      Object.entries(this.fn.environment).map(([k, v]) => [k, this.settings.resolve(k, v).replace(/^\/var\/task(?=\/|$)/, this.taskRoot)]),
    );
    return {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...this.settings.lambdaEnvironment,
      AWS_LAMBDA_FUNCTION_NAME: `Recordgate-${this.fn.logicalId}`,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(this.fn.memoryMb),
      LAMBDA_TASK_ROOT: this.taskRoot,
      ...fromTemplate,
    };
  }

  /** A new sandbox, its bundle loaded: the cold start. */
  private async start(): Promise<ChildProcess> {
    const release = await initSlot();
    try {
      if (this.stopped) throw new Error(`${this.fn.name}'s sandboxes were stopped`);
      this.coldStarts += 1;
      const child = fork(path.join(this.taskRoot, '..', 'runtime.js'), [], {
        cwd: this.taskRoot,
        env: this.environment(),
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        execArgv: [],
      });
      this.all.add(child);
      child.on('exit', () => this.all.delete(child));
      for (const stream of [child.stdout!, child.stderr!]) {
        stream.setEncoding('utf8');
        stream.on('data', (text: string) => this.logs.push(...text.split('\n').filter(Boolean)));
      }
      await new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`${this.fn.name} exited with ${code} while loading`)));
      });
      return child;
    } finally {
      release();
    }
  }

  async invoke(event: unknown): Promise<Invocation> {
    const override = this.settings.timeoutSeconds;
    const timeoutMs = (typeof override === 'function' ? override(this.fn.timeoutSeconds, this.fn.name) : (override ?? this.fn.timeoutSeconds)) * 1000;
    let sandbox: ChildProcess;
    try {
      sandbox = this.idle.pop() ?? (await this.start());
    } catch (error) {
      return { kind: 'failed', reason: (error as Error).message };
    }
    // Lambda's timeout counts from the invocation; the module load before it is the init phase.
    const deadline = Date.now() + timeoutMs;
    const requestId = (event as { requestContext?: { requestId?: string } }).requestContext?.requestId ?? `direct-${deadline}`;
    return new Promise<Invocation>((resolve) => {
      const finish = (invocation: Invocation, reuse: boolean) => {
        clearTimeout(timer);
        sandbox.off('message', onMessage);
        sandbox.off('exit', onExit);
        if (reuse) this.idle.push(sandbox);
        else sandbox.kill('SIGKILL');
        resolve(invocation);
      };
      const onMessage = (message: { requestId?: string; result?: APIGatewayProxyStructuredResultV2; error?: { message: string } }) => {
        if (message.requestId !== requestId) return;
        if (message.error) finish({ kind: 'failed', reason: message.error.message }, true);
        else finish({ kind: 'answer', result: message.result ?? {} }, true);
      };
      const onExit = () => finish({ kind: 'failed', reason: 'Runtime exited' }, false);
      // Past its timeout the sandbox is stopped: nothing it was doing goes on.
      const timer = setTimeout(() => finish({ kind: 'failed', reason: `Task timed out after ${timeoutMs / 1000} seconds` }, false), timeoutMs);
      sandbox.on('message', onMessage);
      sandbox.on('exit', onExit);
      sandbox.send({ requestId, event, deadline, env: this.settings.invocationEnvironment?.() ?? {}, now: Date.now() });
    });
  }

  stop(): void {
    this.stopped = true;
    for (const child of this.all) child.kill('SIGKILL');
  }
}
