/**
 * A CloudFormation custom resource event, as CloudFormation sends it to a function named as the
 * resource's ServiceToken, and the answer it waits for at ResponseURL (a presigned S3 URL):
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-requests.html and
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref-responses.html.
 * No answer holds the stack operation for an hour, so every event is answered, a failure too.
 */
export interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  PhysicalResourceId?: string;
}

export const isCustomResourceEvent = (event: unknown): event is CustomResourceEvent =>
  typeof event === 'object' && event !== null && 'RequestType' in event && 'ResponseURL' in event;

/** Runs `work` for a Create or Update (a Delete has nothing to undo) and answers CloudFormation with its outcome. */
export async function answerCustomResource(event: CustomResourceEvent, physicalId: string, work: () => Promise<void>): Promise<void> {
  let failure: string | undefined;
  try {
    if (event.RequestType !== 'Delete') await work();
  } catch (error) {
    failure = (error as Error).message ?? String(error);
  }
  // CloudFormation keeps at most 4 KB of the whole answer; the reason is what a person reads in the stack's events.
  const body = JSON.stringify({
    Status: failure === undefined ? 'SUCCESS' : 'FAILED',
    Reason: failure?.slice(0, 3000) ?? 'ok',
    PhysicalResourceId: event.PhysicalResourceId ?? physicalId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  });
  // The presigned URL is signed for an empty content type.
  const response = await fetch(event.ResponseURL, { method: 'PUT', headers: { 'content-type': '' }, body });
  if (!response.ok) throw new Error(`CloudFormation's response URL answered ${response.status}`);
}
