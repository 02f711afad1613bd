import { Token, Validations, type CfnElement, type Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';

/**
 * The cdk-nag AwsSolutions findings this stack keeps, each with the reason it is right here.
 * Everything else the checks ask for is done in the constructs themselves.
 */
/** A stack's region or account as cdk-nag writes it: the value if synth knows it, the pseudo parameter otherwise. */
const known = (value: string, pseudo: string) => (Token.isUnresolved(value) ? pseudo : value);

export function acknowledgeFindings(stack: Stack, table: ITableV2): void {
  const owned = table.node.defaultChild as CfnElement | undefined;
  // cdk-nag names a resource by its template expression: the owned table's Arn, or the ARN an imported one is built from.
  const tableArn = owned
    ? `<${stack.getLogicalId(owned)}.Arn>`
    : `arn:<AWS::Partition>:dynamodb:${known(stack.region, '<AWS::Region>')}:${known(stack.account, '<AWS::AccountId>')}:table/${table.tableName}`;
  const validations = Validations.of(stack);
  for (const acknowledgment of [
    {
      id: `AwsSolutions-IAM5[Resource::${tableArn}/index/*]`,
      reason: "The functions Query the table's own GSIs; <table>/index/* names the indexes of this one table and nothing else.",
    },
    {
      id: 'AwsSolutions-SMG4',
      reason:
        'API_TOKENS and ONEBOT_SECRET are shared secrets handed to clients and bots by the operator, so automatic rotation would lock them out; CURSOR_SECRET rotation would invalidate open cursors. The functions re-read secrets every five minutes, so a manual rotation (README) needs no redeploy.',
    },
    {
      id: 'AwsSolutions-APIG4',
      reason:
        "Authorization happens in the functions: record routes need a bearer token with the route's scope (API_TOKENS, or the optional JWT authorizer), OneBot routes check the HMAC signature of ONEBOT_SECRET, and health, docs and the fallback answer no data.",
    },
    {
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry alarm names and states only. CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer managed key (1 USD a month plus a key policy for CloudWatch) would protect nothing secret.',
    },
  ])
    validations.acknowledge(acknowledgment);
}
