import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { RecordGate } from 'recordgate/cdk';

// A team's CDK app: its own stack, recordgate inside it as one construct, the models from its own folder.
const app = new App({ outdir: process.argv[2] });
const stack = new Stack(app, 'TeamService', { env: { account: '123456789012', region: 'us-east-1' } });
new RecordGate(stack, 'Api', { models: path.join(__dirname, 'models') });
app.synth();
